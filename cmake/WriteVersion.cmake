# Writes OUT from IN (miniapp/core/version.cpp.in) with PROJECT_VERSION and the git revision of
# SOURCE_DIR (`git describe --always --dirty --tags`; "unknown" outside a git checkout). Run at
# every build (miniapp/CMakeLists.txt), not once at configure time: a revision read when the build
# was configured stayed in every later build of it, so results and `miniapp --version` named a
# commit they were not built from (a build configured at 726d8e2 still said so nine commits later).
# configure_file leaves OUT untouched when its text is the same, so an unchanged revision
# recompiles nothing.
execute_process(COMMAND git describe --always --dirty --tags
                WORKING_DIRECTORY "${SOURCE_DIR}"
                OUTPUT_VARIABLE MINIAPP_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT MINIAPP_GIT_REVISION)
  set(MINIAPP_GIT_REVISION "unknown")
endif()
configure_file("${IN}" "${OUT}" @ONLY)

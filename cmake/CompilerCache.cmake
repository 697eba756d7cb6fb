# Compiler caching with Debian's ccache, when it is installed: every preset compiles through it,
# so a rebuild of unchanged sources (another preset's identical library code, a fresh clone in CI)
# costs a cache lookup instead of a compile. MINIAPP_CCACHE=OFF (or a launcher of the user's own)
# turns it off. The cache lives outside the build tree (ccache's own default, or CCACHE_DIR).
#
# The launcher names the source tree as ccache's base directory, so entries hold paths relative
# to it and any clone or worktree of the same sources hits them: the README's build in one folder
# fills the cache that CI's fresh clone in another then reads (without it, a CI on a fresh machine
# recompiled every object that the README's build had compiled minutes before).
# CCACHE_NOHASHDIR does the same for the debug-info presets (asan, fuzz), which would otherwise
# hash the build folder into every entry.
option(MINIAPP_CCACHE "Compile through ccache when it is installed" ON)
if(MINIAPP_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(MINIAPP_CCACHE_PROGRAM ccache)
  if(MINIAPP_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER env "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}" CCACHE_NOHASHDIR=true
                                    "${MINIAPP_CCACHE_PROGRAM}")
    message(STATUS "miniapp: compiling through ${MINIAPP_CCACHE_PROGRAM}")
  endif()
endif()

# Compiler caching with Debian's ccache, when it is installed: every preset compiles through it,
# so a rebuild of unchanged sources (another preset's identical library code, a fresh clone in CI)
# costs a cache lookup instead of a compile. MINIAPP_CCACHE=OFF (or a launcher of the user's own)
# turns it off. The cache lives outside the build tree (ccache's own default, or CCACHE_DIR);
# .ci/run sets CCACHE_BASEDIR so that two clones in different folders share entries.
option(MINIAPP_CCACHE "Compile through ccache when it is installed" ON)
if(MINIAPP_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(MINIAPP_CCACHE_PROGRAM ccache)
  if(MINIAPP_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${MINIAPP_CCACHE_PROGRAM}")
    message(STATUS "miniapp: compiling through ${MINIAPP_CCACHE_PROGRAM}")
  endif()
endif()

# Makes the Slurm job templates and embeds them. Each template DIR/<name>.sh.in (names given as a
# comma-separated NAMES) is assembled into ASSEMBLED/<name>.sh: a line `#@@PART file@@` is replaced
# by DIR/parts/<file>, so a piece that several templates share (the site section, the resume and
# stop block, the end of a run) is written once. The assembled templates are the ones installed
# and the ones users start their own from; OUT is written from IN (jobs/templates.cpp.in) with
# them as C++ raw strings. Run at build time (miniapp/CMakeLists.txt), so a template edit rebuilds
# one file.
string(REPLACE "," ";" names "${NAMES}")
set(MINIAPP_EMBEDDED_TEMPLATES "")
file(MAKE_DIRECTORY "${ASSEMBLED}")
foreach(name IN LISTS names)
  file(READ "${DIR}/${name}.sh.in" text)
  foreach(round RANGE 20) # a part may use another part; a cycle stops here
    string(REGEX MATCH "(^|\n)#@@PART ([^@\n]*)@@\n" line "${text}")
    if(NOT line)
      break()
    endif()
    set(part "${CMAKE_MATCH_2}")
    if(NOT part MATCHES "^[a-z][a-z0-9-]*\\.sh$" OR NOT EXISTS "${DIR}/parts/${part}")
      message(FATAL_ERROR "${DIR}/${name}.sh.in: no part '${part}' in ${DIR}/parts")
    endif()
    file(READ "${DIR}/parts/${part}" part_text)
    string(REPLACE "#@@PART ${part}@@\n" "${part_text}" text "${text}")
  endforeach()
  if(text MATCHES "#@@PART ")
    message(FATAL_ERROR "${DIR}/${name}.sh.in: parts nested too deep (a cycle?)")
  endif()
  if(text MATCHES "\\)MINIAPP_TEMPLATE\"")
    message(FATAL_ERROR "${DIR}/${name}.sh.in contains the raw-string delimiter")
  endif()
  # Written only when changed: the tests and the install read these files.
  set(old "")
  if(EXISTS "${ASSEMBLED}/${name}.sh")
    file(READ "${ASSEMBLED}/${name}.sh" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${ASSEMBLED}/${name}.sh" "${text}")
  endif()
  string(APPEND MINIAPP_EMBEDDED_TEMPLATES
         "      {\"${name}\", R\"MINIAPP_TEMPLATE(${text})MINIAPP_TEMPLATE\"},\n")
endforeach()
configure_file("${IN}" "${OUT}" @ONLY)

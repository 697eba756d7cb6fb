# Writes OUT from IN (jobs/templates.cpp.in) with the job templates DIR/<name>.sh, names given as
# a comma-separated NAMES, as C++ raw strings. Run at build time (miniapp/CMakeLists.txt), so a
# template edit rebuilds one file.
string(REPLACE "," ";" names "${NAMES}")
set(MINIAPP_EMBEDDED_TEMPLATES "")
foreach(name IN LISTS names)
  file(READ "${DIR}/${name}.sh" text)
  if(text MATCHES "\\)MINIAPP_TEMPLATE\"")
    message(FATAL_ERROR "${DIR}/${name}.sh contains the raw-string delimiter")
  endif()
  string(APPEND MINIAPP_EMBEDDED_TEMPLATES
         "      {\"${name}\", R\"MINIAPP_TEMPLATE(${text})MINIAPP_TEMPLATE\"},\n")
endforeach()
configure_file("${IN}" "${OUT}" @ONLY)

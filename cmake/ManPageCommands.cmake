# cmake -DMINIAPP=<program> -DOUT=<file> -P ManPageCommands.cmake
# Writes a help2man --include file whose COMMANDS section holds `miniapp help COMMAND` for every
# command `miniapp help` lists, so the man page documents each command's options as --help does.
execute_process(COMMAND ${MINIAPP} help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${MINIAPP} help failed (${rc})")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "" commands "${top}")
string(REPLACE "\n" ";" lines "${commands}")
set(text "[COMMANDS]\n")
foreach(line IN LISTS lines)
  if(line MATCHES "^  ([a-z]+) ")
    set(command ${CMAKE_MATCH_1})
    execute_process(COMMAND ${MINIAPP} help ${command} OUTPUT_VARIABLE help RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${MINIAPP} help ${command} failed (${rc})")
    endif()
    string(REPLACE "\\" "\\e" help "${help}") # roff: a literal backslash
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}") # no line starts a request
    string(APPEND text ".SS ${command}\n.nf\n${help}.fi\n")
  endif()
endforeach()
file(WRITE ${OUT} "${text}")

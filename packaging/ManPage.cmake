# Writes a program's man page with help2man from its own --help and --version, so the page cannot drift from
# the program. For the CLI, a COMMANDS section holds every subcommand's --help as well.
# Invoked at build time as:
#   cmake -DHELP2MAN=… -DPROGRAM=/path/to/bin/NAME -DNAME="one-line summary" -DINCLUDE=extra.h2m -DOUT=NAME.1
#         [-DSUBCOMMANDS=ON] -P ManPage.cmake
# and leaves NAME.1.gz (compressed, as Debian installs man pages).
get_filename_component(bin_dir ${PROGRAM} DIRECTORY)
get_filename_component(program ${PROGRAM} NAME)
get_filename_component(out_dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
# Run by name from PATH, so that the usage lines say "lstm-workbench-cli …", not the build folder's path; no
# display is needed (the app answers --help before it opens one).
set(run ${CMAKE_COMMAND} -E env "PATH=${bin_dir}:$ENV{PATH}" QT_QPA_PLATFORM=offscreen)
set(include_file ${OUT}.h2m)
file(READ ${INCLUDE} extra)

# Preformatted text in roff: backslashes doubled, and a line starting with . or ' must not read as a request.
function(as_roff_block text result)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${result} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

if(SUBCOMMANDS)
  execute_process(COMMAND ${run} ${program} --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${program} --help failed (${rc})")
  endif()
  # CLI11 lists them under "Subcommands:", two spaces in, the name then its summary.
  string(REGEX REPLACE ".*\nSubcommands:\n" "" listing "${top}")
  string(REGEX MATCHALL "(^|\n)  [a-z][a-z-]*" names "${listing}")
  set(commands "[COMMANDS]\n")
  foreach(name IN LISTS names)
    string(STRIP "${name}" name)
    execute_process(COMMAND ${run} ${program} ${name} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${program} ${name} --help failed (${rc})")
    endif()
    as_roff_block("${help}" block)
    string(APPEND commands ".SS ${name}\n${block}")
  endforeach()
  set(extra "${commands}\n${extra}")
endif()
file(WRITE ${include_file} "${extra}")

execute_process(COMMAND ${run} ${HELP2MAN} --no-info --no-discard-stderr --locale=C.UTF-8 "--name=${NAME}"
                        "--include=${include_file}" "--output=${OUT}" ${program}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man ${program} failed (${rc}): ${err}")
endif()
# -n: no name or time stamp inside, so that the same program gives the same bytes.
execute_process(COMMAND gzip -9nf ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${OUT} failed (${rc})")
endif()

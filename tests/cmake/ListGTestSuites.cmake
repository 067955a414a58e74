# cmake -D binary=GTEST_BINARY -D output=FILE -P ListGTestSuites.cmake: writes FILE setting
# workbench_suites to the binary's GoogleTest suites, in the order it lists them (see GTestSuites.cmake).
execute_process(
  COMMAND "${binary}" --gtest_list_tests
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors
  RESULT_VARIABLE status
  TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${binary} --gtest_list_tests failed (${status}):\n${listing}${errors}")
endif()
# A suite is a line that does not start with a space, "Suite." or "Prefix/Suite/0.  # TypeParam = ...".
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT suites)
  message(FATAL_ERROR "${binary} lists no GoogleTest suites:\n${listing}")
endif()
list(JOIN suites "]==] [==[" quoted)
file(WRITE "${output}.tmp" "set(workbench_suites [==[${quoted}]==])\n")
file(RENAME "${output}.tmp" "${output}")

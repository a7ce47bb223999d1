# Fails when any project source starts a child process through a shell (system(), popen(),
# "sh -c"): every child process is started with an argument vector (posix_spawn).
# Usage: cmake -DSOURCE_DIR=<repo> -P tests/no_shell.cmake
file(GLOB_RECURSE sources ${SOURCE_DIR}/apps/*.cpp ${SOURCE_DIR}/flows/*.cpp
  ${SOURCE_DIR}/flows/*.hpp ${SOURCE_DIR}/support/*.cpp ${SOURCE_DIR}/core/*.cpp
  ${SOURCE_DIR}/frontend/*.cpp ${SOURCE_DIR}/mapspace/*.cpp ${SOURCE_DIR}/model/*.cpp
  ${SOURCE_DIR}/search/*.cpp ${SOURCE_DIR}/systemc/*.cpp ${SOURCE_DIR}/systemc/*.hpp
  ${SOURCE_DIR}/mapper/*.cpp ${SOURCE_DIR}/bench/*.cpp)
set(found "")
foreach(f ${sources})
  file(STRINGS ${f} lines REGEX "(^|[^_a-zA-Z0-9])(system|popen|execl|execlp)[ ]*\\(|\"/bin/sh\"|\"sh\", \"-c\"")
  foreach(l ${lines})
    string(REGEX MATCH "^[ ]*//" is_comment "${l}")
    if(NOT is_comment)
      list(APPEND found "${f}: ${l}")
    endif()
  endforeach()
endforeach()
if(found)
  list(JOIN found "\n" msg)
  message(FATAL_ERROR "child processes started through a shell:\n${msg}")
endif()
message(STATUS "no shell: ok")

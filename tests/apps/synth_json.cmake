# Shared by synth_smoke.cmake and fpga_smoke.cmake, after the caller ran `mapwright synth ...
# --json` into `json` (exit code in `rc`, stderr in `err`).

# field(VAR KEY...): VAR = the value at KEY... of the JSON output, or a failure naming the keys.
function(field out)
  string(JSON v ERROR_VARIABLE e GET "${json}" ${ARGN})
  if(e)
    message(FATAL_ERROR "the JSON of mapwright synth (exit ${rc}: ${err}) lacks ${ARGN}: ${e}")
  endif()
  set(${out} "${v}" PARENT_SCOPE)
endfunction()

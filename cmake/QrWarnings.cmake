# Warning flags, per target: qr_target_warnings(<target>...) turns them on for
# the target's C sources and for the host code of its CUDA sources (through
# nvcc's -Xcompiler), plus nvcc's own checks. They are set per target, not
# globally, so that third-party code configured in this tree keeps its own.
#
# With CMAKE_COMPILE_WARNING_AS_ERROR on (the `werror` preset) CMake makes C
# warnings and nvcc's warnings errors; the host compiler behind nvcc needs its
# own -Werror, added here.
include_guard(GLOBAL)

set(QR_C_WARNINGS
  -Wall -Wextra -Wno-unused-parameter
  -Wformat=2 -Wshadow -Wpointer-arith -Wvla -Wundef -Wwrite-strings
  -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition
  $<$<C_COMPILER_ID:GNU>:-Wlogical-op;-Wduplicated-cond;-Wduplicated-branches>)

# Host code in .cu files is C++: the C-only warnings do not apply.
set(QR_CUDA_HOST_WARNINGS -Wall -Wextra -Wno-unused-parameter -Wformat=2 -Wpointer-arith)

# nvcc's own: member initialisers out of order, and launches on the legacy
# default stream, which serialise with every other stream.
set(QR_CUDA_WARNINGS -Wreorder -Wdefault-stream-launch)

function(qr_target_warnings)
  list(JOIN QR_CUDA_HOST_WARNINGS "," host)
  foreach(tgt IN LISTS ARGN)
    target_compile_options(${tgt} PRIVATE
      "$<$<COMPILE_LANGUAGE:C>:${QR_C_WARNINGS}>"
      "$<$<COMPILE_LANGUAGE:CUDA>:${QR_CUDA_WARNINGS};-Xcompiler=${host}>"
      "$<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CMAKE_COMPILE_WARNING_AS_ERROR}>>:-Xcompiler=-Werror>")
  endforeach()
endfunction()

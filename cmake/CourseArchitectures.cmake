# Which GPUs the CUDA code is compiled for.
#
# 1. A user's choice always wins: -DCMAKE_CUDA_ARCHITECTURES=... or the CUDAARCHS environment
#    variable (CMake's own convention). Nothing in the course overrides it.
# 2. With no choice given, build for the GPU(s) in this machine, found the same way CMake's
#    "native" value finds them, but without failing when there is none.
# 3. With no GPU, build a list that covers current GPUs: machine code for Turing (7.5) through
#    Hopper (9.0), plus PTX for 9.0 so the driver can compile it for anything newer.
#
# Lessons never set architectures themselves.
set(COURSE_DEFAULT_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90"
    CACHE INTERNAL "Architectures built when no GPU is present and none was asked for")

function(_course_detect_gpu_architectures out_var)
  set(${out_var} "" PARENT_SCOPE)
  # __nvcc_device_query ships next to nvcc and prints e.g. "90" or "86;90"; it fails without a GPU.
  set(hint_dirs)
  if(DEFINED CMAKE_CUDA_COMPILER)
    get_filename_component(nvcc_dir "${CMAKE_CUDA_COMPILER}" DIRECTORY)
    list(APPEND hint_dirs "${nvcc_dir}")
  endif()
  if(DEFINED ENV{CUDACXX})
    get_filename_component(nvcc_dir "$ENV{CUDACXX}" DIRECTORY)
    list(APPEND hint_dirs "${nvcc_dir}")
  endif()
  list(APPEND hint_dirs /usr/local/cuda/bin)
  find_program(COURSE_NVCC_DEVICE_QUERY __nvcc_device_query HINTS ${hint_dirs})
  if(COURSE_NVCC_DEVICE_QUERY)
    execute_process(COMMAND "${COURSE_NVCC_DEVICE_QUERY}"
                    RESULT_VARIABLE query_result OUTPUT_VARIABLE query_output ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 60)
    if(query_result EQUAL 0 AND query_output MATCHES "^[0-9;]+$")
      list(REMOVE_DUPLICATES query_output)
      set(${out_var} "${query_output}" PARENT_SCOPE)
    endif()
  endif()
endfunction()

macro(course_choose_cuda_architectures)
  # Whether a GPU is here at configure time also decides whether the sanitizer tests are registered.
  _course_detect_gpu_architectures(course_detected_archs)
  if(course_detected_archs)
    set(COURSE_GPU_AT_CONFIGURE ON)
  else()
    set(COURSE_GPU_AT_CONFIGURE OFF)
  endif()

  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED COURSE_CUDA_ARCHITECTURES_CHOSEN
     AND "${CMAKE_CUDA_ARCHITECTURES}" STREQUAL "${COURSE_CUDA_ARCHITECTURES_CHOSEN}")
    # Our own choice from an earlier configure: keep it and the reason recorded with it.
  elseif(DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(COURSE_CUDA_ARCHITECTURES_SOURCE "given by -DCMAKE_CUDA_ARCHITECTURES" CACHE INTERNAL "")
  elseif(DEFINED ENV{CUDAARCHS})
    set(COURSE_CUDA_ARCHITECTURES_SOURCE "given by the CUDAARCHS environment variable" CACHE INTERNAL "")
  elseif(course_detected_archs)
    set(CMAKE_CUDA_ARCHITECTURES "${course_detected_archs}" CACHE STRING
        "CUDA architectures (detected from the GPU present at configure time)")
    set(COURSE_CUDA_ARCHITECTURES_CHOSEN "${course_detected_archs}" CACHE INTERNAL "")
    set(COURSE_CUDA_ARCHITECTURES_SOURCE "detected from the GPU in this machine" CACHE INTERNAL "")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${COURSE_DEFAULT_CUDA_ARCHITECTURES}" CACHE STRING
        "CUDA architectures (no GPU found at configure time: Turing to Hopper, PTX for newer)")
    set(COURSE_CUDA_ARCHITECTURES_CHOSEN "${COURSE_DEFAULT_CUDA_ARCHITECTURES}" CACHE INTERNAL "")
    set(COURSE_CUDA_ARCHITECTURES_SOURCE "default list: no GPU found at configure time" CACHE INTERNAL "")
  endif()
endmacro()

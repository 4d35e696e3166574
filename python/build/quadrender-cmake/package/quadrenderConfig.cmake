# quadrender's CMake package: find_package(quadrender) gives
#   quadrender::quadrender         libquadrender.so (its dependencies inside)
#   quadrender::quadrender_static  libquadrender.a (links ZLIB, Threads
#                                  and, when built with CUDA, the static
#                                  CUDA runtime: found here)
# and quadrender_HAS_CUDA, whether the library was built with the GPU renderer.

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was quadrenderConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

include(CMakeFindDependencyMacro)
set(quadrender_HAS_CUDA OFF)
find_dependency(ZLIB)
find_dependency(Threads)
if(quadrender_HAS_CUDA)
  if(NOT DEFINED CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT}
     AND EXISTS "")
    set(CUDAToolkit_ROOT "")
    set(_quadrender_set_cuda_root TRUE)
  endif()
  find_dependency(CUDAToolkit)
  if(_quadrender_set_cuda_root)
    unset(CUDAToolkit_ROOT)
    unset(_quadrender_set_cuda_root)
  endif()
endif()

include("${CMAKE_CURRENT_LIST_DIR}/quadrenderTargets.cmake")
check_required_components(quadrender)

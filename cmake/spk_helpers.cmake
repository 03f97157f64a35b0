# spk_kokkos_sources(<source>...): compile the sources in the language Kokkos
# was built for.  Kokkos 4 with Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE sets
# Kokkos_COMPILE_LANGUAGE (CUDA, HIP, ...); Kokkos 3.4 leaves it unset (CXX).
function(spk_kokkos_sources)
  if(Kokkos_COMPILE_LANGUAGE)
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE ${Kokkos_COMPILE_LANGUAGE})
  endif()
endfunction()

# spk_add_executable(<name> <source>...): an executable whose sources use spk.
function(spk_add_executable name)
  add_executable(${name} ${ARGN})
  spk_kokkos_sources(${ARGN})
  target_link_libraries(${name} PRIVATE spk::spk)
endfunction()

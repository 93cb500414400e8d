# How the test executables compile (docs/benchmarks.md, "Build and test time"). Their sources are
# about half of a full build's compile time, and none of it is product code: the libraries they
# test keep the build type's flags.
#
# - SHOAL_TEST_OPTIMIZATION (default -Og) replaces the optimization level of the tests' own
#   sources in optimized builds: a test source spends most of its compile optimizing Boost.Test's
#   and CAF's templates, and -Og keeps the warnings that need the optimizer's data flow.
# - SHOAL_PRECOMPILED_HEADERS precompiles Boost.Test (and for the tests of actors, CAF and
#   nlohmann/json) once, shared by every test executable. Off under a compiler launcher such as
#   ccache: two builds of the same header give different .gch files, so ccache, which hashes the
#   .gch, would miss for every test source in each new build directory.
set(SHOAL_TEST_OPTIMIZATION "-Og" CACHE STRING
    "Optimization of the tests' own sources in optimized builds (empty: the build type's)")
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(shoal_pch_default OFF)
else()
  set(shoal_pch_default ON)
endif()
option(SHOAL_PRECOMPILED_HEADERS "Precompile the test executables' common headers"
       ${shoal_pch_default})

set(SHOAL_TEST_OPTIMIZATION_FLAGS
    $<$<AND:$<OR:$<CONFIG:RelWithDebInfo>,$<CONFIG:Release>,$<CONFIG:MinSizeRel>>,$<BOOL:${SHOAL_TEST_OPTIMIZATION}>>:${SHOAL_TEST_OPTIMIZATION}>)

# The precompiled headers live on two small object libraries of their own, so every test
# executable reuses one of them (REUSE_FROM) instead of building its own.
if(SHOAL_PRECOMPILED_HEADERS)
  set(shoal_pch_source ${CMAKE_BINARY_DIR}/shoal_test_pch.cpp)
  file(CONFIGURE OUTPUT ${shoal_pch_source} CONTENT "// Holds the tests' precompiled headers.\n")
  set(shoal_test_pch_headers <boost/test/unit_test.hpp> <algorithm> <chrono> <cstdint>
                             <filesystem> <functional> <map> <memory> <optional> <set> <string>
                             <thread> <utility> <vector>)
  add_library(shoal_test_pch OBJECT ${shoal_pch_source})
  target_link_libraries(shoal_test_pch PRIVATE Boost::unit_test_framework)
  add_library(shoal_actor_test_pch OBJECT ${shoal_pch_source})
  target_link_libraries(shoal_actor_test_pch PRIVATE Boost::unit_test_framework CAF::core
                                                     nlohmann_json::nlohmann_json)
  target_precompile_headers(shoal_test_pch PRIVATE ${shoal_test_pch_headers})
  target_precompile_headers(shoal_actor_test_pch PRIVATE ${shoal_test_pch_headers}
                            <caf/all.hpp> <nlohmann/json.hpp>)
  foreach(pch_target shoal_test_pch shoal_actor_test_pch)
    target_compile_definitions(${pch_target} PRIVATE BOOST_TEST_DYN_LINK)
    target_compile_options(${pch_target} PRIVATE ${SHOAL_TEST_OPTIMIZATION_FLAGS})
  endforeach()
endif()

# Applies the above to a test executable whose sources define BOOST_TEST_DYN_LINK. WITH_CAF: its
# sources use actors, so it takes the precompiled header that holds CAF too.
function(shoal_test_build_settings target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "WITH_CAF" "" "")
  target_compile_options(${target} PRIVATE ${SHOAL_TEST_OPTIMIZATION_FLAGS})
  if(SHOAL_PRECOMPILED_HEADERS)
    if(arg_WITH_CAF)
      target_precompile_headers(${target} REUSE_FROM shoal_actor_test_pch)
    else()
      target_precompile_headers(${target} REUSE_FROM shoal_test_pch)
    endif()
  endif()
  # The source that defines BOOST_TEST_MODULE must include Boost.Test itself, after the define:
  # neither the precompiled header nor a batch may include it first.
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    get_filename_component(source_path ${source} ABSOLUTE)
    if(source_path MATCHES "\\.cpp$" AND EXISTS ${source_path})
      file(STRINGS ${source_path} module_lines REGEX "^#define BOOST_TEST_MODULE")
      if(module_lines)
        set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON
                                                         SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endif()
  endforeach()
endfunction()

# Under SHOAL_UNITY_BUILD, compiles `target`'s sources in batches as the product's are: each test
# source instantiates CAF's and Boost.Test's templates again, and a batch does that once. Only for
# the executables whose sources are known to share no private names (the actor tests and the
# integration tests, the two largest); the others' helpers (`now`, `utc`, `parse_ok`, ...) repeat.
function(shoal_test_unity target)
  if(NOT SHOAL_UNITY_BUILD)
    return()
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                             UNITY_BUILD_BATCH_SIZE ${SHOAL_UNITY_BATCH_SIZE})
  # A fixture in a source's anonymous namespace is a test case's base class; inside a batch GCC
  # sees that source as an included file and warns as it would for a header.
  target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
endfunction()

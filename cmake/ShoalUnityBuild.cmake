# Unity builds for the sources heavy with CAF: the actors, the controller's front door, the CLI's
# own sources, and the actor and integration tests (shoal_test_unity in ShoalTestBuild.cmake;
# docs/benchmarks.md, "Build and test time", fourth round). CAF's
# message and actor templates are instantiated and optimized again in every source that sends
# them, and that is most of a build's time; a batch of sources does it once.
#
# Only for those targets: a static archive's object is linked whole, so a batch in a library the
# CLI or shoal-stepd links would pull its neighbours' code and shared libraries into them (the CLI
# grew from 4 shared libraries to 37 and started three times slower when every library was
# batched). For the same reason the actor library's batches keep the node daemon's actors apart
# from the controller's, so shoald links none of the controller.
option(SHOAL_UNITY_BUILD "Compile the actor-heavy sources in batches (off for an edit-compile loop)"
       ON)
set(SHOAL_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per batch of a unity build")

# Batches of SHOAL_UNITY_BATCH_SIZE sources of `target`.
function(shoal_unity_build target)
  if(SHOAL_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${SHOAL_UNITY_BATCH_SIZE})
  endif()
endfunction()

# Batches of `target`'s sources in which no batch mixes two groups: the sources named after a
# group's name (NAME file...) form one batch each; the rest (the controller's) are dealt out in
# turn into batches of about SHOAL_UNITY_BATCH_SIZE, so the heavy sources spread over them.
function(shoal_unity_groups target)
  if(NOT SHOAL_UNITY_BUILD)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "GROUPS")
  get_target_property(sources ${target} SOURCES)
  set(grouped "")
  set(group "")
  foreach(word IN LISTS arg_GROUPS)
    if(word MATCHES "\\.cpp$")
      get_filename_component(path ${word} ABSOLUTE)
      set_source_files_properties(${path} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP
                                                                               ${group})
      list(APPEND grouped ${path})
    else()
      set(group ${word})
    endif()
  endforeach()
  set(rest "")
  foreach(source IN LISTS sources)
    get_filename_component(path ${source} ABSOLUTE)
    if(NOT path IN_LIST grouped)
      list(APPEND rest ${path})
    endif()
  endforeach()
  list(LENGTH rest count)
  math(EXPR batches "(${count} + ${SHOAL_UNITY_BATCH_SIZE} - 1) / ${SHOAL_UNITY_BATCH_SIZE}")
  if(batches EQUAL 0)
    set(batches 1)
  endif()
  set(i 0)
  foreach(path IN LISTS rest)
    math(EXPR batch "${i} % ${batches}")
    set_source_files_properties(${path} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP
                                                                             rest_${batch})
    math(EXPR i "${i} + 1")
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()

# Debian's libcaf-dev 0.17.6 ships no CMake package; locate it by hand.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
find_library(CAF_IO_LIBRARY caf_io REQUIRED)
if(NOT TARGET CAF::core)
  find_package(Threads REQUIRED)
  add_library(CAF::core UNKNOWN IMPORTED)
  set_target_properties(CAF::core PROPERTIES IMPORTED_LOCATION ${CAF_CORE_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${CAF_INCLUDE_DIR} INTERFACE_LINK_LIBRARIES Threads::Threads)
  add_library(CAF::io UNKNOWN IMPORTED)
  set_target_properties(CAF::io PROPERTIES IMPORTED_LOCATION ${CAF_IO_LIBRARY}
    INTERFACE_LINK_LIBRARIES CAF::core)
endif()
set(CAF_FOUND TRUE)

# The Debian package: `cmake --build build --target package` makes build/shoal_VERSION_ARCH.deb,
# which `apt install ./shoal_*.deb` installs on Debian 12 (docs/install.md). Its dependencies
# come from dpkg-shlibdeps (the libraries the binaries link) plus munge, AuthType's default.

# Man pages from each binary's --help and --version, as Debian's help2man writes them.
find_program(SHOAL_HELP2MAN help2man)
find_program(SHOAL_GZIP gzip)
set(SHOAL_MAN_shoal 1 "submit and watch work on a shoal cluster")
set(SHOAL_MAN_shoalctld 8 "the shoal controller daemon")
set(SHOAL_MAN_shoald 8 "the shoal node daemon")
set(SHOAL_MAN_shoalrestd 8 "slurmrestd's REST API for a shoal cluster")
if(SHOAL_HELP2MAN AND SHOAL_GZIP)
  set(pages "")
  foreach(program shoal shoalctld shoald shoalrestd)
    list(GET SHOAL_MAN_${program} 0 section)
    list(GET SHOAL_MAN_${program} 1 summary)
    set(page ${CMAKE_BINARY_DIR}/man/${program}.${section})
    add_custom_command(
      OUTPUT ${page}.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${SHOAL_HELP2MAN} --no-info --section=${section} --name=${summary}
              --output=${page} $<TARGET_FILE:${program}>
      COMMAND ${SHOAL_GZIP} -9nf ${page}
      DEPENDS ${program}
      COMMENT "Writing the man page ${program}(${section})"
      VERBATIM)
    list(APPEND pages ${page}.gz)
    install(FILES ${page}.gz DESTINATION share/man/man${section})
  endforeach()
  add_custom_target(man_pages ALL DEPENDS ${pages})
else()
  message(STATUS "help2man or gzip not found: no man pages (scripts/install-deps.sh installs it)")
endif()

# Slurm's command names under a folder of their own, so that an installed shoal never shadows a
# Slurm on the same PATH: put /usr/lib/shoal/slurm-names first on PATH to use them (shoald puts
# it on every job's PATH, as `shoal start` does; process::find_command_dirs).
install(CODE "file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/shoal/slurm-names\")")
foreach(name IN LISTS SHOAL_SLURM_NAME_LIST)
  install(CODE "file(CREATE_LINK ../../../bin/shoal
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/shoal/slurm-names/${name}\" SYMBOLIC)")
endforeach()

install(FILES packaging/shoal.conf.in DESTINATION share/shoal)
install(FILES README.md DESTINATION share/doc/shoal)
file(GLOB SHOAL_DOC_PAGES ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${SHOAL_DOC_PAGES} DESTINATION share/doc/shoal)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME shoal)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "shoal developers <shoal@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "cluster resource manager and job scheduler, Slurm-compatible")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "shoal runs batch and interactive work on a cluster of hosts. It reads Slurm's slurm.conf\n\
and batch scripts, and answers Slurm's command names (in /usr/lib/shoal/slurm-names).\n\
This package holds the controller (shoalctld), the node daemon (shoald), the REST API\n\
daemon (shoalrestd), the `shoal` command and their systemd units.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "munge")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/debian/postinst;${PROJECT_SOURCE_DIR}/packaging/debian/prerm;${PROJECT_SOURCE_DIR}/packaging/debian/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
include(CPack)

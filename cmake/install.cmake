# spate's install rules (included by the top CMakeLists.txt when SPATE_INSTALL is on).
#
# Layout under the prefix:
#   include/spate/...                     the public headers
#   lib/libspate.{a,so.*}                 the core library; libspate_kafka,
#   lib/libspate_observe_http             libspate_observe_http and libspate_rocksdb
#   lib/libspate_rocksdb                  when they were built
#   lib/cmake/spate/                      the CMake package: spate-config.cmake, its version
#                                         file and one targets file per component
#   lib/pkgconfig/spate*.pc               pkg-config files
include(CMakePackageConfigHelpers)

set(spate_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/spate)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/spate DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# One export set per target, so that a consumer loads (and needs the dependencies of) only
# the components it asks for.
function(spate_install_component target export_name)
  install(TARGETS ${target} EXPORT spate-${export_name}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT spate-${export_name}-targets NAMESPACE spate:: DESTINATION ${spate_cmake_dir})
endfunction()

spate_install_component(spate core)
set(spate_installed_components "")
if(TARGET spate_kafka)
  spate_install_component(spate_kafka kafka)
  list(APPEND spate_installed_components kafka)
endif()
if(TARGET spate_observe_http)
  spate_install_component(spate_observe_http observe_http)
  list(APPEND spate_installed_components observe_http)
endif()
if(TARGET spate_rocksdb)
  spate_install_component(spate_rocksdb rocksdb)
  list(APPEND spate_installed_components rocksdb)
endif()

# The exported targets' names are spate::spate, spate::kafka, spate::observe_http and
# spate::rocksdb, as the
# build tree's aliases (so add_subdirectory and find_package read the same).
set_target_properties(spate PROPERTIES EXPORT_NAME spate)
if(TARGET spate_kafka)
  set_target_properties(spate_kafka PROPERTIES EXPORT_NAME kafka)
endif()
if(TARGET spate_observe_http)
  set_target_properties(spate_observe_http PROPERTIES EXPORT_NAME observe_http)
endif()
if(TARGET spate_rocksdb)
  set_target_properties(spate_rocksdb PROPERTIES EXPORT_NAME rocksdb)
endif()

if(BUILD_SHARED_LIBS)
  set(spate_static_libraries FALSE)
else()
  set(spate_static_libraries TRUE)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spate-config.cmake.in
  ${PROJECT_BINARY_DIR}/spate-config.cmake
  INSTALL_DESTINATION ${spate_cmake_dir})
# 0.x: a minor version may change the API (CHANGELOG.md, "API stability").
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spate-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spate-config.cmake
              ${PROJECT_BINARY_DIR}/spate-config-version.cmake
        DESTINATION ${spate_cmake_dir})

# pkg-config: spate.pc for the core, one file per component (Requires: spate and the
# component's own dependency). A static libspate needs the thread library at link time.
# The files are relocatable (prefix from ${pcfiledir}), as the CMake package is, so that
# `cmake --install --prefix DIR` works.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(spate_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH spate_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  set(spate_pc_prefix "\${pcfiledir}/${spate_pc_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(spate_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
else()
  set(spate_pc_libdir "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(spate_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(spate_pc_includedir "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
set(spate_pc_platform_cflags "")
if(SPATE_PLATFORM STREQUAL "portable")
  set(spate_pc_platform_cflags " -DSPATE_PLATFORM_PORTABLE=1")
endif()
# A static library's dependencies are needed wherever it is linked, so they are public
# there (Requires, Libs); a shared library's only when linking statically (.private).
function(spate_pkg_config file name description library requires dependency)
  set(pc_name "${name}")
  set(pc_description "${description}")
  set(pc_library "${library}")
  if(BUILD_SHARED_LIBS)
    set(pc_requires "${requires}")
    set(pc_requires_private "${dependency}")
    set(pc_libs "")
    set(pc_libs_private "-pthread")
  else()
    string(JOIN " " pc_requires ${requires} ${dependency})
    set(pc_requires_private "")
    set(pc_libs " -pthread")
    set(pc_libs_private "")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/spate.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/${file} @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${file}
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
spate_pkg_config(spate.pc spate
  "C++20 runtime for stream processing: actors, flow graphs, windows, reactors" spate "" zlib)
if(TARGET spate_kafka)
  spate_pkg_config(spate-kafka.pc spate-kafka "spate's Kafka sources and sinks" spate_kafka
                   spate rdkafka)
endif()
if(TARGET spate_rocksdb)
  spate_pkg_config(spate-rocksdb.pc spate-rocksdb "spate's RocksDB keyed state backend"
                   spate_rocksdb spate rocksdb)
endif()
if(TARGET spate_observe_http)
  spate_pkg_config(spate-observe-http.pc spate-observe-http "spate's metrics HTTP endpoint"
                   spate_observe_http spate cpp-httplib)
endif()

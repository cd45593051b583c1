// The object the test binaries reuse the precompiled header of (tests/CMakeLists.txt).

// The translation unit that builds a test directory's precompiled headers
// (tests/CMakeLists.txt, parascope_test_headers); it has no code of its own.

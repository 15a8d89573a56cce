# Compile options shared by every Parascope target. Targets link
# Parascope::Options instead of touching CMAKE_CXX_FLAGS.
add_library(parascope_options INTERFACE)
add_library(Parascope::Options ALIAS parascope_options)

target_compile_options(parascope_options INTERFACE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast)

# A fresh build links about seventy executables: lld links a test in a fifth of the time of
# the default BFD linker (measured: tst_main_window 1.7 s -> 0.4 s; gold 0.5 s). scripts/deps
# installs lld; without it, gold with g++ (with clang's sanitizer runtime gold warns about
# every local symbol), else the default.
include(CheckLinkerFlag)
check_linker_flag(CXX -fuse-ld=lld PARASCOPE_HAVE_LLD)
if(PARASCOPE_HAVE_LLD)
    target_link_options(parascope_options INTERFACE -fuse-ld=lld)
elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    check_linker_flag(CXX -fuse-ld=gold PARASCOPE_HAVE_GOLD)
    if(PARASCOPE_HAVE_GOLD)
        target_link_options(parascope_options INTERFACE -fuse-ld=gold)
    endif()
endif()

if(PARASCOPE_SANITIZE)
    target_compile_options(parascope_options INTERFACE
        -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
        # -O1 keeps reports exact while Eigen's matrix products stay fast enough for the tests.
        -O1
        # Line tables are all a report's stack trace needs; full debug information made
        # this build a quarter slower to compile (docs/TESTING.md, "Build time").
        -g1)
    target_link_options(parascope_options INTERFACE -fsanitize=address,undefined)
endif()

# The fuzz build: every target carries libFuzzer's coverage instrumentation and the
# sanitizers; only the fuzzers themselves link libFuzzer's main (fuzz/CMakeLists.txt).
if(PARASCOPE_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "PARASCOPE_FUZZ needs clang (libFuzzer): use the fuzz preset")
    endif()
    if(PARASCOPE_SANITIZE)
        message(FATAL_ERROR "PARASCOPE_FUZZ already builds with ASan and UBSan: "
                            "leave PARASCOPE_SANITIZE off")
    endif()
    target_compile_options(parascope_options INTERFACE
        -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
        -fno-omit-frame-pointer)
    target_link_options(parascope_options INTERFACE -fsanitize=address,undefined)
endif()

# Qt's strict string and connection rules (docs/DESIGN.md §6).
add_library(parascope_qt_options INTERFACE)
add_library(Parascope::QtOptions ALIAS parascope_qt_options)
target_link_libraries(parascope_qt_options INTERFACE parascope_options)
target_compile_definitions(parascope_qt_options INTERFACE
    QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_FOREACH QT_NO_KEYWORDS
    QT_NO_CAST_FROM_BYTEARRAY QT_NO_URL_CAST_FROM_STRING QT_NO_NARROWING_CONVERSIONS_IN_CONNECT)

# The settings every translation unit of core/ compiles with: C++20, Eigen and
# nothing else. The boundary test compiles a probe with exactly these.
function(parascope_core_settings target)
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(${target} PUBLIC Eigen3::Eigen PRIVATE parascope_options)
    target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()

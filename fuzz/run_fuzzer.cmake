# Runs one fuzzer over a copy of its seed corpus for a fixed number of inputs from a
# fixed seed, so that CI's run is repeatable and leaves the sources untouched.
# cmake -DFUZZER=... -DCORPUS=... -DDICT=... -DSCRATCH=... -DRUNS=... -P run_fuzzer.cmake
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/artifacts)
file(COPY ${CORPUS}/ DESTINATION ${SCRATCH}/corpus)
execute_process(
    COMMAND ${FUZZER} -runs=${RUNS} -seed=1 -timeout=30 -rss_limit_mb=2048
            -dict=${DICT} -artifact_prefix=${SCRATCH}/artifacts/ -print_final_stats=1
            ${SCRATCH}/corpus
    RESULT_VARIABLE result)
if(NOT result EQUAL 0)
    file(GLOB artifacts ${SCRATCH}/artifacts/*)
    message(FATAL_ERROR "${FUZZER} failed (${result}); the input that failed: ${artifacts}\n"
                        "Reproduce with: ${FUZZER} <that file> (docs/TESTING.md)")
endif()

#include "core/precision.h"

namespace core {

double bitsPerValue(Precision p)
{
    return halfBitsPerValue(p) / 2.0;
}

bool isTrainable(Precision p)
{
    switch (p) {
    case Precision::fp32:
    case Precision::bf16:
    case Precision::fp16:
    case Precision::fp8:
    case Precision::nvfp4:
        return true;
    default:
        return false;
    }
}

bool isActivationFormat(Precision p)
{
    return isTrainable(p) && p != Precision::nvfp4;
}

} // namespace core

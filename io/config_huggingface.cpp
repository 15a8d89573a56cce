// A Hugging Face model config.json as a Parascope model preset (docs/import.md).
#include "io/framework_config.h"

namespace io {

std::optional<core::InputError> importHuggingFace(const QByteArray &, const core::Presets &,
                                                  const ImportOptions &, ImportedConfig &)
{
    return core::InputError{{}, "reading a Hugging Face config.json is being written"};
}

} // namespace io

#include "core/presets.h"

#include <algorithm>

namespace core {

namespace {
template <typename T> const T *findById(const std::vector<T> &items, std::string_view id)
{
    auto it = std::find_if(items.begin(), items.end(), [id](const T &x) { return x.id == id; });
    return it == items.end() ? nullptr : &*it;
}

template <typename T> void putById(std::vector<T> &items, T item)
{
    auto it =
        std::find_if(items.begin(), items.end(), [&item](const T &x) { return x.id == item.id; });
    if (it == items.end())
        items.push_back(std::move(item));
    else
        *it = std::move(item);
}
} // namespace

const ModelSpec *Presets::model(std::string_view id) const
{
    return findById(models, id);
}

const DeviceSpec *Presets::device(std::string_view id) const
{
    return findById(devices, id);
}

void Presets::put(ModelSpec m)
{
    putById(models, std::move(m));
}

void Presets::put(DeviceSpec d)
{
    putById(devices, std::move(d));
}

} // namespace core

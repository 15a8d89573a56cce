#include "core/presets.h"

#include <algorithm>
#include <string>
#include <unordered_map>

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

template <typename T> void mergeById(std::vector<T> &items, std::vector<T> incoming)
{
    // Where each id is: the first entry with it, as findById finds it.
    std::unordered_map<std::string, std::size_t> index;
    index.reserve(items.size() + incoming.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        index.try_emplace(items[i].id, i);
    for (T &item : incoming) {
        const auto [at, added] = index.try_emplace(item.id, items.size());
        if (added)
            items.push_back(std::move(item));
        else
            items[at->second] = std::move(item);
    }
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

void Presets::merge(Presets other)
{
    mergeById(models, std::move(other.models));
    mergeById(devices, std::move(other.devices));
}

} // namespace core

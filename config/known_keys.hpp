#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shoal::config {

/// Which of a config's sets of keys a word is checked against: the main keys of slurm.conf,
/// those of a NodeName= (or seed Name=) line, of a PartitionName= line, or of a gres.conf line.
enum class key_set : uint8_t { main, node, partition, gres };

/// Every key shoal reads in `set`, spelt as Slurm's man pages spell it (SlurmctldPort,
/// RealMemory). Keys shoal accepts without acting on them (Slurm's, with a one-line warning)
/// are included: they are known.
const std::vector<std::string_view>& known_keys(key_set set);

/// The known key of `set` nearest to `word` (case-insensitive, as Slurm's keys are), for "did
/// you mean SlurmctldPort?"; "" when none is close: within 1 edit for words of up to 4
/// characters, 2 up to 8 and 3 beyond (an edit: one character inserted, removed, changed, or
/// two neighbours swapped). Of equally near keys, the first in known_keys order.
std::string nearest_key(std::string_view word, key_set set);

/// The optimal-string-alignment distance between `a` and `b`, case-insensitive.
size_t key_distance(std::string_view a, std::string_view b);

/// "unknown key 'SlurmctldPrt' (did you mean SlurmctldPort?)", or without the question when no
/// key is near.
std::string unknown_key_text(std::string_view word, key_set set);

}  // namespace shoal::config

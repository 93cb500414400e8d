#include "policy/dependency.hpp"

#include <cctype>

#include "messages/errc.hpp"

namespace shoal::policy {

const char* to_string(dependency_kind kind) {
  switch (kind) {
    case dependency_kind::after:
      return "after";
    case dependency_kind::afterany:
      return "afterany";
    case dependency_kind::afterok:
      return "afterok";
    case dependency_kind::afternotok:
      return "afternotok";
    case dependency_kind::aftercorr:
      return "aftercorr";
    case dependency_kind::singleton:
      return "singleton";
  }
  return "?";
}

namespace {

class dependency_reader {
 public:
  explicit dependency_reader(std::string_view text) : text_(text) {}

  shoal::expected<dependency> parse() {
    if (text_.empty()) return fail(0, "empty value; expected e.g. afterok:123 or singleton");
    dependency dep;
    char separator = 0;
    for (;;) {
      if (auto err = item(dep)) return err;
      if (pos_ == text_.size()) break;
      char c = text_[pos_];
      if (c != ',' && c != '?')
        return fail(pos_, std::string{"unexpected '"} + c + "'; expected , ? : or +");
      if (separator != 0 && c != separator)
        return fail(pos_, "',' (all of) and '?' (any of) cannot be mixed; use one of them");
      separator = c;
      ++pos_;
    }
    dep.any_of = separator == '?';
    return dep;
  }

 private:
  shoal::error item(dependency& dep) {
    auto start = pos_;
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return targets(dep, dependency_kind::afterany);
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    auto word = text_.substr(start, pos_ - start);
    if (word.empty()) return fail(start, "expected a dependency type such as afterok");
    if (word == "singleton") {
      dep.terms.push_back({dependency_kind::singleton, 0, std::nullopt, 0});
      return {};
    }
    static constexpr dependency_kind kinds[] = {
        dependency_kind::after, dependency_kind::afterany, dependency_kind::afterok,
        dependency_kind::afternotok, dependency_kind::aftercorr};
    for (auto k : kinds) {
      if (word == to_string(k)) {
        if (pos_ >= text_.size() || text_[pos_] != ':')
          return fail(pos_, std::string{"expected ':' and a job ID after "} + to_string(k));
        ++pos_;
        return targets(dep, k);
      }
    }
    return fail(start, "unknown dependency type '" + std::string{word} +
                           "'; use after, afterany, afterok, afternotok, aftercorr or singleton");
  }

  // One or more `ID[_TASK][+MIN]` separated by ':'.
  shoal::error targets(dependency& dep, dependency_kind kind) {
    for (;;) {
      dependency_term t;
      t.kind = kind;
      auto id = number("a job ID");
      if (!id) return id.error();
      if (*id == 0) return fail(pos_ - 1, "job ID 0 does not exist");
      t.job = *id;
      if (pos_ < text_.size() && text_[pos_] == '_') {
        ++pos_;
        auto task = number("an array task index after '_'");
        if (!task) return task.error();
        if (*task > UINT32_MAX) return fail(pos_ - 1, "array task index too large");
        t.task = uint32_t(*task);
      }
      if (pos_ < text_.size() && text_[pos_] == '+') {
        if (kind != dependency_kind::after)
          return fail(pos_,
                      std::string{"+MINUTES applies to 'after' only, not "} + to_string(kind));
        ++pos_;
        auto m = number("minutes after '+'");
        if (!m) return m.error();
        if (*m > UINT32_MAX / 60) return fail(pos_ - 1, "too many minutes");
        t.minutes = uint32_t(*m);
      }
      dep.terms.push_back(t);
      if (pos_ < text_.size() && text_[pos_] == ':') {
        ++pos_;
        continue;
      }
      return {};
    }
  }

  shoal::expected<uint64_t> number(const char* what) {
    auto start = pos_;
    uint64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (v > (UINT64_MAX - 9) / 10) return fail(start, "number too large");
      v = v * 10 + uint64_t(text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == start) return fail(start, std::string{"expected "} + what);
    return v;
  }

  shoal::error fail(size_t pos, const std::string& why) const {
    return shoal::error(errc::invalid_request,
                        "--dependency: column " + std::to_string(pos + 1) + ": " + why);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

dependency_state evaluate_term(const dependency_term& t, const dependency_view& view, int64_t now,
                               std::optional<uint32_t> self_task) {
  using s = dependency_state;
  if (t.kind == dependency_kind::singleton)
    return view.singleton_busy && view.singleton_busy() ? s::waiting : s::satisfied;
  auto task = t.task;
  auto kind = t.kind;
  if (kind == dependency_kind::aftercorr) {
    if (self_task && !task) task = self_task;
    kind = dependency_kind::afterok;
  }
  auto o = view.outcome(t.job, task);
  if (!o.known) return s::satisfied;
  bool ended = o.pending == 0 && o.running == 0;
  switch (kind) {
    case dependency_kind::after:
      return o.pending == 0 && now >= o.left_pending_at + int64_t{t.minutes} * 60 ? s::satisfied
                                                                                  : s::waiting;
    case dependency_kind::afterany:
      return ended ? s::satisfied : s::waiting;
    case dependency_kind::afterok:
      if (o.failed > 0) return s::never_satisfiable;
      return ended ? s::satisfied : s::waiting;
    case dependency_kind::afternotok:
      if (!ended) return s::waiting;
      return o.failed > 0 ? s::satisfied : s::never_satisfiable;
    default:
      return s::satisfied;
  }
}

}  // namespace

shoal::expected<dependency> parse_dependency(std::string_view text) {
  return dependency_reader{text}.parse();
}

std::string to_string(const dependency& dep) {
  std::string out;
  for (const auto& t : dep.terms) {
    if (!out.empty()) out += dep.any_of ? '?' : ',';
    out += to_string(t.kind);
    if (t.kind == dependency_kind::singleton) continue;
    out += ':' + std::to_string(t.job);
    if (t.task) out += '_' + std::to_string(*t.task);
    if (t.minutes) out += '+' + std::to_string(t.minutes);
  }
  return out;
}

const char* dependency_reason(dependency_state state) {
  switch (state) {
    case dependency_state::satisfied:
      return "";
    case dependency_state::waiting:
      return "Dependency";
    case dependency_state::never_satisfiable:
      return "DependencyNeverSatisfied";
  }
  return "";
}

dependency_state evaluate(const dependency& dep, const dependency_view& view, int64_t now,
                          std::optional<uint32_t> self_task) {
  using s = dependency_state;
  if (dep.terms.empty()) return s::satisfied;
  size_t satisfied = 0;
  size_t never = 0;
  for (const auto& t : dep.terms) {
    auto st = evaluate_term(t, view, now, self_task);
    if (st == s::satisfied) {
      if (dep.any_of) return s::satisfied;
      ++satisfied;
    } else if (st == s::never_satisfiable) {
      if (!dep.any_of) return s::never_satisfiable;
      ++never;
    }
  }
  if (dep.any_of) return never == dep.terms.size() ? s::never_satisfiable : s::waiting;
  return satisfied == dep.terms.size() ? s::satisfied : s::waiting;
}

std::vector<dependency_term> unknown_targets(const dependency& dep, const dependency_view& view) {
  std::vector<dependency_term> out;
  for (const auto& t : dep.terms)
    if (t.kind != dependency_kind::singleton && !view.outcome(t.job, t.task).known)
      out.push_back(t);
  return out;
}

}  // namespace shoal::policy

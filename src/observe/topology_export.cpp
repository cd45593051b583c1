#include "spate/observe/topology_export.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace spate::observe {

namespace {

// What both formats draw: boxes (farms), nodes in them, labelled edges.
struct picture {
  struct node {
    std::string id;
    std::string label;
    std::string kind;
    std::size_t group;  // index into groups
  };
  struct edge {
    std::size_t from, to;  // indices into nodes
    std::string label;
  };
  std::vector<std::string> groups;  // a farm's name; one group per farm with >1 replica
  std::vector<std::size_t> group_sizes;
  std::vector<node> nodes;
  std::vector<edge> edges;
};

std::string base_name(const std::string& name) {
  const auto hash = name.rfind('#');
  return hash == std::string::npos ? name : name.substr(0, hash);
}

std::string counters_text(std::uint64_t in, std::uint64_t out, const std::string& kind) {
  if (kind == "source") return std::to_string(out) + " out";
  if (kind == "sink") return std::to_string(in) + " in";
  return std::to_string(in) + " in / " + std::to_string(out) + " out";
}

picture draw(const flow::topology& t, const topology_picture_options& options) {
  picture p;
  std::map<std::string, std::size_t> group_of_name;
  std::vector<std::size_t> group_of_node;
  for (const auto& n : t.nodes) {
    const std::string base = base_name(n.name);
    auto [it, added] = group_of_name.emplace(base, p.groups.size());
    if (added) {
      p.groups.push_back(base);
      p.group_sizes.push_back(0);
    }
    ++p.group_sizes[it->second];
    group_of_node.push_back(it->second);
  }
  if (!options.collapse_replicas) {
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const auto& n = t.nodes[i];
      std::string label = n.name;
      if (options.show_counters) label += "\\n" + counters_text(n.items_in, n.items_out, n.kind);
      p.nodes.push_back({"n" + std::to_string(i), label, n.kind, group_of_node[i]});
    }
    for (const auto& e : t.edges) {
      std::string label = e.route;
      if (options.show_counters && e.queued > 0) {
        label += (label.empty() ? "" : "\\n") + std::to_string(e.queued) + " queued";
      }
      p.edges.push_back({e.from, e.to, label});
    }
    return p;
  }
  // Collapsed: one node per group, counters summed, parallel edges merged.
  std::vector<std::uint64_t> in(p.groups.size()), out(p.groups.size());
  std::vector<std::string> kind(p.groups.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    in[group_of_node[i]] += t.nodes[i].items_in;
    out[group_of_node[i]] += t.nodes[i].items_out;
    kind[group_of_node[i]] = t.nodes[i].kind;
  }
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    std::string label = p.groups[g];
    if (p.group_sizes[g] > 1) label += " \u00d7" + std::to_string(p.group_sizes[g]);
    if (options.show_counters) label += "\\n" + counters_text(in[g], out[g], kind[g]);
    p.nodes.push_back({"n" + std::to_string(g), label, kind[g], g});
  }
  std::map<std::tuple<std::size_t, std::size_t, std::string>, std::pair<std::size_t, std::size_t>>
      merged;  // (from, to, route) -> (edges, queued)
  for (const auto& e : t.edges) {
    auto& [count, queued] = merged[{group_of_node[e.from], group_of_node[e.to], e.route}];
    ++count;
    queued += e.queued;
  }
  for (const auto& [key, value] : merged) {
    const auto& [from, to, route] = key;
    std::string label = route;
    if (value.first > 1)
      label += (label.empty() ? "" : ", ") + std::to_string(value.first) + " edges";
    if (options.show_counters && value.second > 0) {
      label += (label.empty() ? "" : "\\n") + std::to_string(value.second) + " queued";
    }
    p.edges.push_back({from, to, label});
  }
  p.group_sizes.assign(p.groups.size(), 1);  // no boxes: each group is one node
  return p;
}

std::string dot_quoted(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      out += "\\\"";
    } else if (s[i] == '\\' && (i + 1 >= s.size() || s[i + 1] != 'n')) {
      out += "\\\\";
    } else {
      out += s[i];
    }
  }
  return out + "\"";
}

const char* dot_shape(const std::string& kind) {
  if (kind == "source") return "invhouse";
  if (kind == "sink") return "house";
  if (kind == "router" || kind == "collector") return "diamond";
  return "box";
}

// Mermaid labels go in double quotes; a quote inside becomes #quot; and \n a <br/>.
std::string mermaid_label(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == 'n') {
      out += "<br/>";
      ++i;
    } else if (s[i] == '"') {
      out += "#quot;";
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string to_dot(const flow::topology& topology, const std::string& title,
                   topology_picture_options options) {
  const picture p = draw(topology, options);
  std::string out = "digraph " + dot_quoted(title) + " {\n";
  out += "  rankdir=LR;\n  label=" + dot_quoted(title) + ";\n";
  out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    const bool boxed = p.group_sizes[g] > 1;
    if (boxed) {
      out +=
          "  subgraph cluster_" + std::to_string(g) + " {\n    label=" +
          dot_quoted(p.groups[g] + " (farm, " + std::to_string(p.group_sizes[g]) + " replicas)") +
          ";\n    style=rounded;\n";
    }
    for (const auto& n : p.nodes) {
      if (n.group != g) continue;
      out += std::string(boxed ? "    " : "  ") + n.id + " [label=" + dot_quoted(n.label) +
             ", shape=" + dot_shape(n.kind) + "];\n";
    }
    if (boxed) out += "  }\n";
  }
  for (const auto& e : p.edges) {
    out += "  " + p.nodes[e.from].id + " -> " + p.nodes[e.to].id;
    if (!e.label.empty()) out += " [label=" + dot_quoted(e.label) + "]";
    out += ";\n";
  }
  return out + "}\n";
}

std::string to_mermaid(const flow::topology& topology, topology_picture_options options) {
  const picture p = draw(topology, options);
  std::string out = "flowchart LR\n";
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    const bool boxed = p.group_sizes[g] > 1;
    if (boxed) {
      out += "  subgraph g" + std::to_string(g) + " [\"" +
             mermaid_label(p.groups[g] + " (farm, " + std::to_string(p.group_sizes[g]) +
                           " replicas)") +
             "\"]\n";
    }
    for (const auto& n : p.nodes) {
      if (n.group != g) continue;
      const bool round = n.kind == "source" || n.kind == "sink";
      const bool diamond = n.kind == "router" || n.kind == "collector";
      out += std::string(boxed ? "    " : "  ") + n.id +
             (round     ? "([\""
              : diamond ? "{\""
                        : "[\"") +
             mermaid_label(n.label) +
             (round     ? "\"])"
              : diamond ? "\"}"
                        : "\"]") +
             "\n";
    }
    if (boxed) out += "  end\n";
  }
  for (const auto& e : p.edges) {
    out += "  " + p.nodes[e.from].id;
    out += e.label.empty() ? " --> " : " -- \"" + mermaid_label(e.label) + "\" --> ";
    out += p.nodes[e.to].id + "\n";
  }
  return out;
}

}  // namespace spate::observe

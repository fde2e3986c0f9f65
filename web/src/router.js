// A hash router of a few routes: #/login, #/projects, #/namespace/<ns>, #/pod?namespace=..&pod=..,
// #/recordings/<ns>, #/recordings/<ns>/<id>. Old links with ?pod= in the query open the pod page.
import { ref } from "vue";

function parse() {
  const hash = location.hash.replace(/^#/, "") || (new URLSearchParams(location.search).has("pod") ? `/pod${location.search}` : "/projects");
  const [path, query = ""] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return "";
    }
  });
  return { name: parts[0] || "projects", args: parts.slice(1), query: new URLSearchParams(query) };
}

export const route = ref(parse());
window.addEventListener("hashchange", () => (route.value = parse()));

export function go(path) {
  location.hash = path;
}

// Images map to toolbox profiles: no images exist on our machines, so a container runs the machine's own
// tools (docs/machines.md). First match wins; an image without profile is an image pull error.

export interface ToolboxProfile {
  name: string;
  /** "/regex/" against the whole reference, a repository (any tag or digest), or an exact "repository:tag". */
  images: string[];
  /**
   * Entrypoint and arguments, overridden as Kubernetes overrides an image's. The built-ins, like the images
   * they stand for (busybox's CMD ["sh"]), have no entrypoint: `kubectl run ... -- sh -c 'echo hi'` runs sh.
   */
  command: string[];
  args?: string[];
  /** Put before the standard PATH. */
  path?: string[];
  env?: Record<string, string>;
}

export const STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

export const BUILTIN_PROFILES: readonly ToolboxProfile[] = [
  { name: "ops-toolbelt", images: ["/(^|\\/)ops-toolbelt([:@]|$)/"], command: [], args: ["/bin/bash"], path: ["/usr/local/bin"] },
  { name: "shell", images: ["busybox", "alpine", "debian", "ubuntu"], command: [], args: ["/bin/sh"] },
];

/** Repository and tag/digest of a reference, Docker Hub names normalised to docker.io/library/... */
export function parseReference(ref: string): { repository: string; tag?: string; digest?: string } {
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split("/");
  const first = parts[0] ?? "";
  const hasRegistry = parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost");
  let repository = rest;
  if (!hasRegistry) repository = parts.length === 1 ? `docker.io/library/${rest}` : `docker.io/${rest}`;
  return { repository, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

function matches(pattern: string, image: string): boolean {
  if (pattern.length > 2 && pattern.startsWith("/") && pattern.endsWith("/")) return new RegExp(pattern.slice(1, -1)).test(image);
  const want = parseReference(pattern);
  const got = parseReference(image);
  if (want.repository !== got.repository) return false;
  return want.tag === undefined || want.tag === got.tag;
}

export function profileFor(image: string, profiles: readonly ToolboxProfile[] = BUILTIN_PROFILES): ToolboxProfile | undefined {
  if (image.length > 1024) return undefined;
  return profiles.find((p) => p.images.some((i) => matches(i, image)));
}

/** Kubernetes' rule: command replaces the entrypoint (and drops the image's args); args replace the args. */
export function commandLine(profile: ToolboxProfile, command: string[] | undefined, args: string[] | undefined): string[] {
  if (command && command.length > 0) return [...command, ...(args ?? [])];
  return [...profile.command, ...(args && args.length > 0 ? args : (profile.args ?? []))];
}

// In-memory RBAC objects with the indexes the authorizer needs on every request: bindings by
// subject ("u:<user name>", "g:<group>"; ServiceAccount subjects are indexed under the user name
// they match), cluster-wide and per namespace. Fed by Reflectors.
import type { KubeObject } from "../../apis/meta/v1/types.ts";
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from "../../apis/rbac/v1/types.ts";
import type { UserInfo } from "../authentication/types.ts";
import { makeUsername } from "../serviceaccount/util.ts";
import type { ReflectorHandler } from "./reflector.ts";

type Binding = ClusterRoleBinding | RoleBinding;

/** Index keys for one subject; none for a ServiceAccount subject whose namespace is unknown. */
function subjectKey(s: Subject, bindingNamespace: string): string | undefined {
  switch (s.kind) {
    case "User":
      return `u:${s.name}`;
    case "Group":
      return `g:${s.name}`;
    case "ServiceAccount": {
      const ns = s.namespace || bindingNamespace;
      return ns ? `u:${makeUsername(ns, s.name)}` : undefined;
    }
    default:
      return undefined;
  }
}

/** The keys under which bindings for this user are indexed. */
export function userKeys(user: UserInfo): string[] {
  const keys = [`u:${user.username}`];
  for (const g of user.groups) keys.push(`g:${g}`);
  return keys;
}

/** Bindings of one scope (cluster, or one namespace) indexed by subject. */
class BindingSet<B extends Binding> {
  readonly byName = new Map<string, B>();
  private readonly bySubject = new Map<string, Set<string>>();

  constructor(private readonly namespace: string) {}

  upsert(b: B): void {
    const name = b.metadata.name ?? "";
    this.remove(name);
    this.byName.set(name, b);
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, this.namespace);
      if (!k) continue;
      let set = this.bySubject.get(k);
      if (!set) this.bySubject.set(k, (set = new Set()));
      set.add(name);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const s of old.subjects ?? []) {
      const k = subjectKey(s, this.namespace);
      const set = k ? this.bySubject.get(k) : undefined;
      if (!set) continue;
      set.delete(name);
      if (set.size === 0) this.bySubject.delete(k!);
    }
  }

  /** Bindings that may apply to the user, sorted by name (deterministic reasons). */
  candidates(keys: string[]): B[] {
    const names: string[] = [];
    for (const k of keys) {
      const set = this.bySubject.get(k);
      if (set) for (const n of set) names.push(n);
    }
    if (names.length > 1) {
      names.sort();
      for (let i = names.length - 1; i > 0; i--) if (names[i] === names[i - 1]) names.splice(i, 1);
    }
    return names.map((n) => this.byName.get(n)!);
  }

  get size(): number {
    return this.byName.size;
  }
}

export class RbacCache {
  readonly clusterRoles = new Map<string, ClusterRole>();
  /** namespace -> name -> Role */
  readonly roles = new Map<string, Map<string, Role>>();
  readonly clusterRoleBindings = new BindingSet<ClusterRoleBinding>("");
  private readonly roleBindings = new Map<string, BindingSet<RoleBinding>>();

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(namespace)?.get(name);
  }

  roleBindingsIn(namespace: string): BindingSet<RoleBinding> | undefined {
    return this.roleBindings.get(namespace);
  }

  // Handlers for the four reflectors.
  readonly clusterRoleHandler: ReflectorHandler<ClusterRole> = byName(this.clusterRoles);
  readonly roleHandler: ReflectorHandler<Role> = namespaced(this.roles, () => new Map<string, Role>(), (m, o) => m.set(o.metadata.name ?? "", o), (m, name) => m.delete(name));
  readonly clusterRoleBindingHandler: ReflectorHandler<ClusterRoleBinding> = {
    replace: (items) => {
      for (const name of [...this.clusterRoleBindings.byName.keys()]) this.clusterRoleBindings.remove(name);
      for (const b of items) this.clusterRoleBindings.upsert(b);
    },
    upsert: (b) => this.clusterRoleBindings.upsert(b),
    remove: (b) => this.clusterRoleBindings.remove(b.metadata.name ?? ""),
  };
  readonly roleBindingHandler: ReflectorHandler<RoleBinding> = namespaced(
    this.roleBindings,
    (ns) => new BindingSet<RoleBinding>(ns),
    (set, b) => set.upsert(b),
    (set, name) => set.remove(name),
  );
}

function byName<T extends KubeObject>(map: Map<string, T>): ReflectorHandler<T> {
  return {
    replace: (items) => {
      map.clear();
      for (const o of items) map.set(o.metadata.name ?? "", o);
    },
    upsert: (o) => void map.set(o.metadata.name ?? "", o),
    remove: (o) => void map.delete(o.metadata.name ?? ""),
  };
}

/** A handler keeping a per-namespace container C of objects T. */
function namespaced<T extends KubeObject, C extends { size: number }>(
  outer: Map<string, C>,
  make: (ns: string) => C,
  put: (c: C, o: T) => void,
  del: (c: C, name: string) => void,
): ReflectorHandler<T> {
  const upsert = (o: T) => {
    const ns = o.metadata.namespace ?? "";
    let c = outer.get(ns);
    if (!c) outer.set(ns, (c = make(ns)));
    put(c, o);
  };
  return {
    replace: (items) => {
      outer.clear();
      for (const o of items) upsert(o);
    },
    upsert,
    remove: (o) => {
      const ns = o.metadata.namespace ?? "";
      const c = outer.get(ns);
      if (!c) return;
      del(c, o.metadata.name ?? "");
      if (c.size === 0) outer.delete(ns);
    },
  };
}

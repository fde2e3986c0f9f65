// Service-account user names and groups ([as] pkg/authentication/serviceaccount/util.go).

export const SERVICE_ACCOUNT_USERNAME_PREFIX = "system:serviceaccount:";
export const ALL_SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts";
export const SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:";
/** The issuer of legacy, Secret-based tokens. */
export const LEGACY_ISSUER = "kubernetes/serviceaccount";

export function makeUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

/** { namespace, name } for `system:serviceaccount:<ns>:<name>`, undefined for any other user name. */
export function splitUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** The groups every service account of the namespace belongs to (without system:authenticated). */
export function makeGroupNames(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNT_GROUP_PREFIX}${namespace}`];
}

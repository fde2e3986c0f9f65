// Name validators for object metadata (k8s.io/apimachinery/pkg/api/validation/generic.go).
// `prefix` is true when the value is a generateName base, which may end in a dash because
// random characters are appended to it.
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
} from "../names/validation.ts";

/** Returns the problems with a name (empty when valid). */
export type NameValidator = (name: string, prefix: boolean) => string[];

export const IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0";

/**
 * Replaces a trailing dash so a prefix can be checked with the full-name rules. Like Go's
 * maskTrailingDash it drops the last two characters and appends "a" (an upstream quirk kept so
 * that exactly the same prefixes validate).
 */
export function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

/** Most kinds: a DNS-1123 subdomain (at most 253 characters). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** A DNS-1123 label (at most 63 characters, no dots). */
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** A DNS-1035 label (starts with a letter), e.g. Services. */
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

/** Namespaces are DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;

/** Any name that is a usable URL path segment (the registry's baseline check). */
export const validatePathSegmentName: NameValidator = (name, prefix) => (prefix ? [] : isValidPathSegmentName(name));

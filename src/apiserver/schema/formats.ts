// String formats checked by OpenAPI validation, as kube-openapi's strfmt registry does. Formats
// not listed here (int32, int64, double, password, ...) are not checked, as in Kubernetes.
import { isIP } from "node:net";

const dateTimeRe = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const dateRe = /^(\d{4})-(\d{2})-(\d{2})$/;
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const hostnameRe = /^(?=.{1,255}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const emailRe = /^[^@\s]+@[^@\s]+$/;
const macRe = /^(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{2}[:-]){7}[0-9A-Fa-f]{2}$|^(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$/;
const durationRe = /^[-+]?(?:\d+(?:\.\d+)?\s*(?:ns|us|µs|ms|s|m|h|d|w)\s*)+$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** The last valid date-time seen: every write stamps the current second (creationTimestamp, managedFields) and validates it. */
let lastDateTime = "";

function isDateTime(s: string): boolean {
  if (s === lastDateTime) return true;
  const m = dateTimeRe.exec(s);
  if (!m) return false;
  const [hh, mm, ss] = [Number(m[4]), Number(m[5]), Number(m[6])];
  const valid = validDate(Number(m[1]), Number(m[2]), Number(m[3])) && hh < 24 && mm < 60 && ss < 61;
  if (valid) lastDateTime = s;
  return valid;
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const v = isIP(ip);
  if (v === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v === 4 ? 32 : 128);
}

function isURI(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

const checks: Record<string, (s: string) => boolean> = {
  "date-time": isDateTime,
  datetime: isDateTime,
  date: (s) => {
    const m = dateRe.exec(s);
    return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  },
  // Go's base64 decoder skips line breaks.
  byte: (s) => base64Re.test(s.replace(/[\r\n]/g, "")),
  uuid: (s) => uuidRe.test(s),
  uuid3: (s) => uuidRe.test(s),
  uuid4: (s) => uuidRe.test(s),
  uuid5: (s) => uuidRe.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCIDR,
  hostname: (s) => hostnameRe.test(s),
  email: (s) => emailRe.test(s),
  mac: (s) => macRe.test(s),
  duration: (s) => durationRe.test(s),
  uri: isURI,
};

/** true when the format is unknown (not checked) or the string conforms to it. */
export function checkFormat(format: string, value: string): boolean {
  const check = checks[format];
  return check ? check(value) : true;
}

export function isKnownFormat(format: string): boolean {
  return format in checks;
}

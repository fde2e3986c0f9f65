// Field errors with paths, as k8s.io/apimachinery/pkg/util/validation/field. Validation is
// pure: it returns every error it finds, each with the path of the offending field.
import type { CauseType, StatusCause } from "../../apis/meta/v1/types.ts";

export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid"
  | "InternalError";

export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value, when there is one to show. */
  value?: unknown;
  detail: string;
}

/** A field path: `Path.root("spec").child("ingress").index(0)` renders as `spec.ingress[0]`. */
export class Path {
  private constructor(private readonly text: string) {}
  static root(name: string): Path {
    return new Path(name);
  }
  child(name: string, ...more: string[]): Path {
    let p = `${this.text}.${name}`;
    for (const m of more) p += `.${m}`;
    return new Path(p);
  }
  index(i: number): Path {
    return new Path(`${this.text}[${i}]`);
  }
  key(k: string): Path {
    return new Path(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

const mk =
  (type: FieldErrorType, defaultDetail = "") =>
  (path: Path | string, value: unknown, detail?: string): FieldError => ({
    type,
    field: String(path),
    value,
    detail: detail ?? defaultDetail,
  });

export const invalid = mk("FieldValueInvalid");
export const duplicate = mk("FieldValueDuplicate");
export const notFound = mk("FieldValueNotFound");
export const tooLong = mk("FieldValueTooLong");
export const typeInvalid = mk("FieldValueTypeInvalid");

export function required(path: Path | string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field: String(path), detail };
}

export function forbidden(path: Path | string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field: String(path), detail };
}

export function notSupported(path: Path | string, value: unknown, valid: string[]): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(", ")}` : "";
  return { type: "FieldValueNotSupported", field: String(path), value, detail };
}

export function internalError(path: Path | string, err: Error): FieldError {
  return { type: "InternalError", field: String(path), detail: err.message };
}

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
  InternalError: "Internal error",
};

function showValue(v: unknown): string {
  if (v === undefined) return "";
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

/** `spec.ingress[0].ipBlock.cidr: Invalid value: "x": must be a valid CIDR` */
export function formatFieldError(e: FieldError): string {
  const hasValue =
    e.value !== undefined && e.type !== "FieldValueRequired" && e.type !== "FieldValueForbidden" && e.type !== "InternalError";
  const head = hasValue ? `${typeText[e.type]}: ${showValue(e.value)}` : typeText[e.type];
  return `${e.field}: ${head}${e.detail ? `: ${e.detail}` : ""}`;
}

export function formatFieldErrors(errs: FieldError[]): string {
  if (errs.length === 1) return formatFieldError(errs[0]!);
  return `[${errs.map(formatFieldError).join(", ")}]`;
}

export function causesOf(errs: FieldError[]): StatusCause[] {
  return errs.map((e) => {
    const full = formatFieldError(e);
    const message = full.startsWith(`${e.field}: `) ? full.slice(e.field.length + 2) : full;
    return { reason: e.type as CauseType, message, field: e.field };
  });
}

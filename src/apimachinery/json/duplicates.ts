// Finds duplicate object keys in JSON text, which JSON.parse silently resolves to the last value.
// `fieldValidation=Strict` rejects them, as kube-apiserver's strict decoder does. The input must
// already be valid JSON (the caller parsed it); paths are rendered as field paths, e.g. "data.a"
// or "spec.items[2].name".

export function duplicateFields(text: string): string[] {
  const found: string[] = [];
  let i = 0;

  const skipSpace = (): void => {
    while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    skipSpace();
    const c = text[i];
    if (c === "{") return object(path);
    if (c === "[") return array(path);
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !",]} \n\r\t".includes(text[i]!)) i++; // number, true, false, null
  };
  const object = (path: string): void => {
    i++;
    const seen = new Set<string>();
    skipSpace();
    if (text[i] === "}") {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      const key = readString();
      const child = path ? `${path}.${key}` : key;
      if (seen.has(key)) found.push(child);
      seen.add(key);
      skipSpace();
      i++; // colon
      value(child);
      skipSpace();
      if (text[i++] === "}") return;
    }
  };
  const array = (path: string): void => {
    i++;
    skipSpace();
    if (text[i] === "]") {
      i++;
      return;
    }
    for (let n = 0; ; n++) {
      value(`${path}[${n}]`);
      skipSpace();
      if (text[i++] === "]") return;
    }
  };

  value("");
  return found;
}

// Quoting of printed command lines for the user's shell (docs/gardenctl-ssh.md#the-ssh-command-line, escaping): non-printable
// characters are stripped first; bash/zsh single-quote with ' as '"'"'; fish single-quotes with \
// doubled and ' as '\''; powershell single-quotes with each single-quote-like character doubled.

export const SHELLS = ["bash", "zsh", "fish", "powershell"] as const;
export type Shell = (typeof SHELLS)[number];

// eslint-disable-next-line no-control-regex -- stripping control characters is the point
const NON_PRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const PS_QUOTES = /['\u2018\u2019\u201a\u201b]/g;

export function escape(shell: Shell, value: string): string {
  const v = value.replace(NON_PRINTABLE, "");
  switch (shell) {
    case "bash":
    case "zsh":
      return `'${v.replaceAll("'", `'"'"'`)}'`;
    case "fish":
      return `'${v.replaceAll("\\", "\\\\").replaceAll("'", "'\\''")}'`;
    case "powershell":
      return `'${v.replace(PS_QUOTES, (q) => q + q)}'`;
  }
}

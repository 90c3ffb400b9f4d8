// The toast of a form's first invalid field (issue 20.18): the error alone when it already names
// the field, else the field's label before it, so "额度必须是整数" says which of two quota fields.

/** The label as a reader says it: no required mark, no live note in brackets ("额度（等价金额：$1）"). */
export function fieldName(label: string): string {
  return label
    .replace(/\s*\*\s*$/, "")
    .replace(/\s*[（(].*$/, "")
    .trim();
}

export function fieldProblem(label: string, error: string): string {
  const name = fieldName(label);
  return !name || error.includes(name) ? error : `${name}：${error}`;
}

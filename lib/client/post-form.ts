// Leaving the console for a payment gateway that is started by a form post (EPay's submit.php,
// spec §2/§7): a hidden form with the signed fields, submitted in this tab. Browser-only.

/** Builds a hidden `<form method="post" action={url}>` holding `fields` and submits it (same tab). */
export function postHiddenForm(url: string, fields: Record<string, string>): void {
  const form = document.createElement("form");
  form.method = "post";
  form.action = url;
  form.acceptCharset = "utf-8";
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}

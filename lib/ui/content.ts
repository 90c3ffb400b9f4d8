// Admin-written page content (HomePageContent, About) is either a URL to embed or Markdown/HTML.

export function isEmbeddableUrl(content: string): boolean {
  return /^https?:\/\//i.test(content.trim());
}

/** Sandbox for embedded admin pages: scripts and forms work, the frame cannot navigate the console. */
export const CONTENT_IFRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups";

/** The same without its own origin: a page of the console's origin with scripts and its origin could lift its own sandbox. */
export const SAME_ORIGIN_CONTENT_SANDBOX = "allow-scripts allow-forms allow-popups";

/** The sandbox of an embedded address, given the console's origin. */
export function contentSandbox(url: string, consoleOrigin: string): string {
  let origin: string;
  try {
    origin = new URL(url, consoleOrigin).origin;
  } catch {
    return SAME_ORIGIN_CONTENT_SANDBOX;
  }
  return origin === consoleOrigin ? SAME_ORIGIN_CONTENT_SANDBOX : CONTENT_IFRAME_SANDBOX;
}

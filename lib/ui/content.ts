// Admin-written page content (HomePageContent, About) is either a URL to embed or Markdown/HTML.

export function isEmbeddableUrl(content: string): boolean {
  return /^https?:\/\//i.test(content.trim());
}

/** Sandbox for embedded admin pages: scripts and forms work, the frame cannot navigate the console. */
export const CONTENT_IFRAME_SANDBOX = "allow-scripts allow-same-origin allow-forms allow-popups";

import { z } from "@hono/zod-openapi";
import sanitizeHtml from "sanitize-html";
import { parsePublicHttpsUrl } from "./public-url";

const LINK_SCHEMES = ["http:", "https:", "mailto:"];

/**
 * Whether a URL is absolute and of one of the schemes. The WHATWG parser is the one browsers use,
 * so tabs, newlines and entity tricks inside a scheme (`java&#9;script:`) read here as they would
 * there. Relative URLs are refused: content is shown by web and native clients alike, where a
 * relative link has no base to resolve against.
 */
function hasScheme(value: string | undefined, schemes: readonly string[]): boolean {
  if (value === undefined) return false;
  try {
    return schemes.includes(new URL(value.trim()).protocol);
  } catch {
    return false;
  }
}

function without(attribs: sanitizeHtml.Attributes, name: string): sanitizeHtml.Attributes {
  const { [name]: _dropped, ...rest } = attribs;
  return rest;
}

/**
 * The one allowlist of rich text (course, module and assignment descriptions, text blocks,
 * submissions). Anything not listed is dropped; the text inside a dropped element stays, except
 * for elements whose content is code, styling or a foreign document (`nonTextTags`).
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "p", "br", "hr", "h1", "h2", "h3", "h4",
    "ul", "ol", "li",
    "strong", "b", "em", "i", "u", "s", "strike", "del",
    "a", "blockquote", "code", "pre",
    "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
    "img",
  ],
  allowedAttributes: {
    a: ["href", "title", "target", "rel"],
    img: ["src", "alt", "title", "width", "height"],
    ol: ["start"],
    th: ["colspan", "rowspan"],
    td: ["colspan", "rowspan"],
  },
  allowedClasses: { code: ["language-*"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["https"] },
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  nonTextTags: ["script", "style", "textarea", "option", "noscript", "xmp", "title", "template", "iframe", "object", "embed", "svg", "math", "noembed", "noframes", "select"],
  parseStyleAttributes: false,
  transformTags: {
    // rel is always ours: a link opened from content must not hand the page a window.opener or a referrer.
    a: (tagName, attribs) => {
      let kept = hasScheme(attribs.href, LINK_SCHEMES) ? attribs : without(attribs, "href");
      // Only a new tab: a named target could steer another window of the reader's.
      if (kept.target !== undefined && kept.target !== "_blank") kept = without(kept, "target");
      return { tagName, attribs: { ...kept, rel: "noopener noreferrer" } };
    },
    // A reader's client loads an image without a click, so its address follows the one URL rule
    // (public https host, no IP literal or internal name) and is kept as the parser serializes it.
    img: (tagName, attribs) => {
      const parsed = attribs.src === undefined ? null : parsePublicHttpsUrl(attribs.src.trim());
      return { tagName, attribs: parsed?.ok ? { ...attribs, src: parsed.url } : without(attribs, "src") };
    },
  },
  // A link whose address was refused keeps its text; an image without an address is nothing.
  exclusiveFilter: (frame) => {
    if (frame.tag === "a" && !frame.attribs.href) return "excludeTag";
    if (frame.tag === "img" && !frame.attribs.src) return true;
    return false;
  },
};

/** Client HTML reduced to the rich-text allowlist; the result is safe to render as HTML. */
export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}

/**
 * A rich-text body field: at most `max` characters as sent (the contract's limits are on the
 * input), stored sanitized.
 */
export function richTextField(options: { max: number }) {
  return z.string().max(options.max).transform(sanitizeRichText).openapi({ type: "string", format: "html", maxLength: options.max });
}

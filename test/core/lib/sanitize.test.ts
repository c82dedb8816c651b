import { describe, expect, it } from "vitest";
import { richTextField, sanitizeRichText } from "../../../src/core/lib/sanitize";

describe("sanitizeRichText keeps the allowlist", () => {
  it.each([
    ["inline formatting", "<p>Hello <b>b</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <s>s</s> <strike>x</strike> <del>d</del></p>"],
    ["headings h1-h4", "<h1>a</h1><h2>b</h2><h3>c</h3><h4>d</h4>"],
    ["lists", '<ul><li>a</li></ul><ol start="3"><li>b</li></ol>'],
    ["quotes and code", '<blockquote>q</blockquote><pre><code class="language-ts">x &lt; 1</code></pre>'],
    ["line breaks and rules", "<p>a<br />b</p><hr />"],
    [
      "basic tables",
      '<table><caption>c</caption><thead><tr><th colspan="2">h</th></tr></thead><tbody><tr><td rowspan="2">d</td></tr></tbody><tfoot><tr><td>f</td></tr></tfoot></table>',
    ],
    ["https images", '<img src="https://cdn.example.com/a.png" alt="A" title="T" width="10" height="20" />'],
    ["an empty string", ""],
    ["plain text, escaped", "1 &lt; 2 &amp; 3 &gt; \"4\""],
  ])("%s", (_name, html) => {
    expect(sanitizeRichText(html)).toBe(html);
  });

  it("forces rel on every link and keeps only a _blank target", () => {
    expect(sanitizeRichText('<a href="https://example.com/a?b=1&c=2" target="_blank" rel="opener" title="t">x</a>')).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer" title="t">x</a>',
    );
    expect(sanitizeRichText('<a href="http://example.com" target="main">x</a>')).toBe('<a href="http://example.com" rel="noopener noreferrer">x</a>');
    expect(sanitizeRichText('<a href="mailto:a@b.example">m</a>')).toBe('<a href="mailto:a@b.example" rel="noopener noreferrer">m</a>');
  });

  it("closes unclosed markup", () => {
    expect(sanitizeRichText("<p>unclosed <b>bold")).toBe("<p>unclosed <b>bold</b></p>");
  });

  it("drops what is outside the allowlist but keeps its text", () => {
    expect(sanitizeRichText("<div><span>kept</span></div><h5>five</h5><h6>six</h6>")).toBe("keptfivesix");
    expect(sanitizeRichText('<p style="color:red" class="x" id="y" data-x="1">styled</p>')).toBe("<p>styled</p>");
    expect(sanitizeRichText('<pre><code class="language-js evil">x</code></pre>')).toBe('<pre><code class="language-js">x</code></pre>');
    expect(sanitizeRichText("<p>a<!-- comment --><![CDATA[x]]>b</p>")).toBe("<p>ab</p>");
  });
});

describe("sanitizeRichText removes hostile input", () => {
  it.each([
    ["a script", "<script>alert(1)</script><p>ok</p>", "<p>ok</p>"],
    ["a style element", "<style>p{color:red}</style><p>ok</p>", "<p>ok</p>"],
    ["an image with onerror and no https source", "<img src=x onerror=alert(1)>", ""],
    ["event handlers on allowed tags", '<img src="https://cdn.example.com/a.png" onerror="alert(1)"><p onclick="x()">p</p>', '<img src="https://cdn.example.com/a.png" /><p>p</p>'],
    ["an http image", '<img src="http://cdn.example.com/a.png">', ""],
    ["a data: image", '<img src="data:image/png;base64,AAAA">', ""],
    ["an image on a loopback address", '<img src="https://127.0.0.1/a.png"><img src="https://0x7f000001/a.png"><img src="https://[::1]/a.png">', ""],
    ["an image on the cloud metadata address", '<img src="https://169.254.169.254/latest/meta-data/">', ""],
    ["an image on a local or internal name", '<img src="https://localhost/a.png"><img src="https://printer.local/a.png"><img src="https://intranet/a.png">', ""],
    ["an image with credentials", '<img src="https://user:pass@cdn.example.com/a.png">', ""],
    ["an image with a bidi override in its address", '<img src="https://cdn.example.com/\u202Egnp.a">', ""],
    ["an image address as the URL parser serializes it", '<img src="https://CDN.example.com/a b.png">', '<img src="https://cdn.example.com/a%20b.png" />'],
    ["an image srcset", '<img src="https://cdn.example.com/a.png" srcset="javascript:alert(1) 1x">', '<img src="https://cdn.example.com/a.png" />'],
    ["a javascript: link", '<a href="javascript:alert(1)">x</a>', "x"],
    ["a javascript: link with mixed case and spaces", '<a href=" JaVaScRiPt:alert(1)">x</a>', "x"],
    ["a javascript: link with an entity tab", '<a href="java&#x09;script:alert(1)">x</a>', "x"],
    ["a javascript: link spelled with entities", '<a href="&#106;avascript:alert(1)">x</a>', "x"],
    ["a data: link", '<a href="data:text/html,<script>alert(1)</script>">x</a>', "x"],
    ["a vbscript: link", '<a href="vbscript:msgbox(1)">x</a>', "x"],
    ["a relative link", '<a href="/relative">x</a>', "x"],
    ["a protocol-relative link", '<a href="//evil.example">x</a>', "x"],
    ["xlink:href", '<a href="https://ok.example" xlink:href="javascript:alert(1)">x</a>', '<a href="https://ok.example" rel="noopener noreferrer">x</a>'],
    ["an iframe", '<iframe src="https://evil.example">fallback</iframe>', ""],
    ["an svg with a script", "<svg onload=alert(1)><script>alert(1)</script><text>t</text></svg>", ""],
    ["math with a nested style", "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>", ""],
    ["noscript with markup in an attribute", '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>', ""],
    ["a textarea with markup", "<textarea><img src=x onerror=alert(1)></textarea>", ""],
    ["object and embed", '<object data="javascript:alert(1)">o</object><embed src="javascript:alert(1)">', ""],
    ["a split script tag", "<scr<script>ipt>alert(1)</script>", "ipt&gt;alert(1)"],
    ["a doubled script tag", "<<script>script>alert(1)<</script>/script>", "&lt;/script&gt;"],
    ["forms", '<form action="https://x.example"><input value="v"><button>b</button></form>', "b"],
    ["document-level tags", '<base href="https://evil.example"><meta http-equiv="refresh" content="0;url=javascript:alert(1)"><link rel=stylesheet href=x>', ""],
  ])("%s", (_name, html, expected) => {
    expect(sanitizeRichText(html)).toBe(expected);
  });
});

describe("richTextField", () => {
  it("sanitizes what it accepts and checks the length as sent", () => {
    const field = richTextField({ max: 60 });
    expect(field.parse('<p onclick="x()">hi</p><script>1</script>')).toBe("<p>hi</p>");
    expect(field.safeParse("x".repeat(61)).success).toBe(false);
    expect(field.safeParse(42).success).toBe(false);
  });
});

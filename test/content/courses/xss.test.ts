import { describe, expect, it } from "vitest";
import { as, schoolWithAdmin } from "../../helpers/users";

/**
 * Script-injection vectors (after the OWASP XSS filter evasion cheat sheet): script tags in many
 * spellings, event handlers, javascript:/vbscript:/data: URLs in links and images, entity and
 * whitespace tricks inside schemes, SVG and MathML, frames, objects, styles and expressions,
 * meta refresh, base and form hijacks.
 */
const VECTORS = [
  `<script>alert(1)</script>`,
  `<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>`,
  `<ScRiPt>alert(String.fromCharCode(88,83,83))</sCrIpT>`,
  `<<SCRIPT>alert("XSS");//<</SCRIPT>`,
  `<SCRIPT/XSS SRC="https://xss.example/xss.js"></SCRIPT>`,
  `<script\x20type="text/javascript">javascript:alert(1);</script>`,
  `<IMG SRC="javascript:alert('XSS');">`,
  `<IMG SRC=JaVaScRiPt:alert('XSS')>`,
  `<IMG SRC=javascript:alert(&quot;XSS&quot;)>`,
  `<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>`,
  `<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29>`,
  `<IMG SRC="jav\tascript:alert('XSS');">`,
  `<IMG SRC="jav&#x09;ascript:alert('XSS');">`,
  `<IMG SRC="jav&#x0A;ascript:alert('XSS');">`,
  `<IMG SRC=" &#14;  javascript:alert('XSS');">`,
  `<img src=x onerror=alert(1)>`,
  `<img src="https://ok.example/a.png" onerror="alert(1)" onload="alert(2)">`,
  `<IMG """><SCRIPT>alert("XSS")</SCRIPT>">`,
  `<a href="javascript:alert(1)">click</a>`,
  `<a href="JAVASCRIPT:alert(1)">click</a>`,
  `<a href="&#106;avascript:alert(1)">click</a>`,
  `<a href="java&#9;script:alert(1)">click</a>`,
  `<a href="vbscript:msgbox(1)">click</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>`,
  `<a href="https://ok.example" onmouseover="alert(1)">hover</a>`,
  `<p onclick="alert(1)" style="background:url(javascript:alert(1))">text</p>`,
  `<svg onload=alert(1)>`,
  `<svg><script>alert(1)</script></svg>`,
  `<svg/onload=alert('XSS')>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<iframe src="javascript:alert(1)"></iframe>`,
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  `<IFRAME SRC=# onmouseover="alert(document.cookie)"></IFRAME>`,
  `<object data="javascript:alert(1)"></object>`,
  `<embed src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
  `<style>@import 'https://xss.example/xss.css';</style>`,
  `<STYLE>BODY{-moz-binding:url("https://xss.example/xssmoz.xml#xss")}</STYLE>`,
  `<DIV STYLE="width: expression(alert('XSS'));">x</DIV>`,
  `<div style="background-image: url(&#1;javascript:alert('XSS'))">x</div>`,
  `<META HTTP-EQUIV="refresh" CONTENT="0;url=javascript:alert('XSS');">`,
  `<BASE HREF="javascript:alert('XSS');//">`,
  `<LINK REL="stylesheet" HREF="javascript:alert('XSS');">`,
  `<TABLE BACKGROUND="javascript:alert('XSS')"><TD BACKGROUND="javascript:alert('XSS')">x</TD></TABLE>`,
  `<BODY ONLOAD=alert('XSS')>`,
  `<INPUT TYPE="IMAGE" SRC="javascript:alert('XSS');">`,
  `<form action="javascript:alert(1)"><button>go</button></form>`,
  `<details open ontoggle=alert(1)>`,
  `<video><source onerror="alert(1)"></video>`,
  `<marquee onstart=alert(1)>x</marquee>`,
  `<a href="https://ok.example" target="evil" rel="opener">ok</a><img src="http://insecure.example/a.png">`,
  `<xss onafterscriptexecute=alert(1)><script>1</script>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`,
];

const FORBIDDEN = [/<script/i, /\son\w+\s*=/i, /javascript:/i, /vbscript:/i, /<iframe/i, /<svg/i, /<style/i, /<object/i, /<embed/i, /<math/i, /expression\(/i, /data:/i];

describe("course descriptions are sanitized", () => {
  it(`stores none of ${VECTORS.length} script-injection vectors in a form a browser would run`, async () => {
    expect(VECTORS.length).toBeGreaterThanOrEqual(30);
    const { admin } = await schoolWithAdmin();
    const created = await as(admin, "/t/courses", { body: { title: "XSS", slug: "xss", description: VECTORS.join("\n") } });
    expect(created.status).toBe(201);
    const patched = [];
    for (const [i, vector] of VECTORS.entries()) {
      const res = await as(admin, `/t/courses/${created.body.data.id}`, { method: "PATCH", body: { description: `<p>before ${i}</p>${vector}<p>after</p>` } });
      expect(res.status).toBe(200);
      const stored = (await as(admin, `/t/courses/${created.body.data.id}`)).body.data.description as string;
      expect(stored).toBe(res.body.data.description);
      patched.push({ vector, stored });
    }
    const all = [{ vector: "all at once", stored: (await as(admin, "/t/courses")).body.data.courses[0].description as string }, ...patched];
    for (const { vector, stored } of all) {
      for (const pattern of FORBIDDEN) expect({ vector, stored, pattern: String(pattern), found: pattern.test(stored) }).toMatchObject({ found: false });
    }
    // Safe content around the vectors survives; links keep only safe attributes.
    expect(patched[0]!.stored).toBe("<p>before 0</p><p>after</p>");
    expect(patched.at(-3)!.stored).toContain(`<a href="https://ok.example" rel="noopener noreferrer">ok</a>`);
  });
});

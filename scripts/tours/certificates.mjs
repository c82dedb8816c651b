import { COURSE } from "../seed/courses.mjs";
import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "the demo course's certificate rule, Lola's certificate, its public check by code, the signing keys";

const CODE = "0DEM-0000-CERT-0041";

/**
 * Ada reads the demo course's rule; Lola (student3, who completed the course) lists her
 * certificate and fetches its PDF; anyone checks the code without signing in (dashes and case
 * ignored) and reads the keys the token is signed with. Nothing is revoked, so every run finds
 * the seed's certificate valid.
 */
export async function run(t) {
  const { admin, student3 } = PEOPLE;
  const ada = await t.login(admin);
  const lola = await t.login(student3);

  t.section(`${label(admin)} and the demo course's certificate rule`);
  await t.step("The rule", { who: ada, path: `/t/courses/${COURSE.id}/certificate` });
  await t.step("Issue to everyone who already qualifies", { method: "POST", who: ada, path: `/t/courses/${COURSE.id}/certificates/issue-missing` });
  await t.step("The course's certificates", {
    who: ada,
    path: `/t/courses/${COURSE.id}/certificates`,
    show: (json) => ({ total: json.data.total, certificates: json.data.certificates.map((c) => pick(c, ["code", "holder_name", "status"])) }),
  });

  t.section(`${label(student3)} and her certificate`);
  const mine = await t.step("Her certificates", {
    who: lola,
    path: "/t/students/me/certificates",
    show: (json) => json.data.certificates.map((c) => pick(c, ["id", "code", "title", "holder_name", "verify_url", "pdf_url"])),
  });
  const certificate = mine.data.certificates.find((c) => c.code === CODE);
  t.check(certificate !== undefined, `the seed's certificate ${CODE} is hers`);
  // A PDF body is text to the tour (no `headers` on it): its type is read from the step's response.
  await t.step("The PDF (rendered once, then served from storage)", { who: lola, path: `/t/certificates/${certificate.id}/pdf` });
  t.check(t.lastHeaders.get("content-type") === "application/pdf", "served as application/pdf");

  t.section("Anyone checks the code, without signing in");
  await t.step("Verify (lower case, no dashes)", { path: `/verify/${CODE.replaceAll("-", "").toLowerCase()}` });
  await t.step("An unknown code", { path: "/verify/0000-0000-0000-0000", expect: 404 });
  await t.step("The signing keys (JWKS)", { path: "/.well-known/jwks.json" });
}

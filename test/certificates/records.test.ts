import { SELF } from "cloudflare:test";
import { extractText, getDocumentProxy } from "unpdf";
import { describe, expect, it } from "vitest";
import { failure } from "../helpers/http";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../helpers/users";
import { certificateRows, completeBlock, courseWithStudent, putRule, setNames } from "./helpers";
import { insertEnrollment } from "../helpers/courses";

/** The lists, the detail and the PDF (05 section 4). */

async function schoolWithCertificates(count: number) {
  const { school, admin } = await schoolWithAdmin();
  const tree = await courseWithStudent(school.id, await signedIn(school, { role: "student" }));
  await putRule(admin, tree.courseId, { enabled: true });
  const students = [];
  for (let i = 0; i < count; i++) {
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    students.push(student);
  }
  return { school, admin, tree, students };
}

describe("certificate lists and detail", () => {
  it("the course's list is paged newest first; a restricted curator sees their own students' only", async () => {
    const { school, admin, tree, students } = await schoolWithCertificates(3);
    const page1 = await as(admin, `/t/courses/${tree.courseId}/certificates?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data).toMatchObject({ total: 3, page: 1, limit: 2 });
    const page2 = await as(admin, `/t/courses/${tree.courseId}/certificates?limit=2&page=2`);
    const listed = [...page1.body.data.certificates, ...page2.body.data.certificates].map((c: { student_id: string }) => c.student_id);
    expect(new Set(listed)).toEqual(new Set(students.map((student) => student.id)));
    expect((await as(admin, `/t/courses/${tree.courseId}/certificates?page=9`)).body.data).toEqual({ certificates: [], total: 3, page: 9, limit: 50 });

    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    await assignIndividualCurator(students[1]!.id, curator.id);
    const own = await as(curator, `/t/courses/${tree.courseId}/certificates`);
    expect(own.body.data.certificates.map((c: { student_id: string }) => c.student_id)).toEqual([students[1]!.id]);
    expect(own.body.data.total).toBe(1);
    expect(failure(await as(admin, `/t/courses/${unknownId()}/certificates`))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/certificates?limit=0`))).toEqual({ status: 400, error: "invalid_params" });
  });

  it("the detail: the holder and staff in scope; another student, a curator out of scope and another school get 404", async () => {
    const { school, admin, students } = await schoolWithCertificates(2);
    const [mine] = (await as(students[0]!, "/t/students/me/certificates")).body.data.certificates;
    expect((await as(students[0]!, `/t/certificates/${mine.id}`)).body.data).toEqual(mine);
    expect((await as(admin, `/t/certificates/${mine.id}`)).body.data).toEqual(mine);
    expect(failure(await as(students[1]!, `/t/certificates/${mine.id}`))).toEqual({ status: 404, error: "certificate_not_found" });
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect(failure(await as(curator, `/t/certificates/${mine.id}`))).toEqual({ status: 404, error: "certificate_not_found" });
    await assignIndividualCurator(students[0]!.id, curator.id);
    expect((await as(curator, `/t/certificates/${mine.id}`)).status).toBe(200);
    const other = await schoolWithAdmin();
    expect(failure(await as(other.admin, `/t/certificates/${mine.id}`))).toEqual({ status: 404, error: "certificate_not_found" });
    expect(failure(await as(admin, `/t/certificates/${unknownId()}`))).toEqual({ status: 404, error: "certificate_not_found" });
    expect(failure(await as(admin, "/t/certificates/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await as(admin, `/t/certificates/${unknownId()}/revoke`, { body: { reason: "x" } }))).toEqual({ status: 404, error: "certificate_not_found" });
    expect((await as(admin, "/t/students/me/certificates")).status).toBe(403);
  });
});

describe("certificate PDF", () => {
  it("A4 landscape with the Cyrillic holder name and the code; rendered once, then served from R2", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await setNames(student.id, "Айгерім", "Өтегенова");
    const tree = await courseWithStudent(school.id, student, "Қазақ тілі");
    await putRule(admin, tree.courseId, { enabled: true });
    await completeBlock(student, tree.blockIds[0]!);
    const [certificate] = (await as(student, "/t/students/me/certificates")).body.data.certificates;

    const first = await SELF.fetch(certificate.pdf_url, { headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": student.subdomain } });
    expect(first.status).toBe(200);
    expect(first.headers.get("Content-Type")).toBe("application/pdf");
    const bytes = new Uint8Array(await first.arrayBuffer());
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const page = await pdf.getPage(1);
    const [, , width, height] = page.view;
    expect([Math.round(width!), Math.round(height!)]).toEqual([842, 595]);
    const { text } = await extractText(pdf, { mergePages: true });
    expect(text).toContain("Айгерім Өтегенова");
    expect(text).toContain("Қазақ тілі");
    expect(text).toContain(certificate.code);

    const [row] = await certificateRows(student.id);
    expect(row!.pdfKey).toBe(`certificates/${school.id}/${certificate.id}.pdf`);
    // Served from storage afterwards: the stored object is what answers (replace it to tell).
    const { env } = await import("cloudflare:test");
    await env.MEDIA.put(row!.pdfKey!, "%PDF-stored");
    const second = await SELF.fetch(certificate.pdf_url, { headers: { authorization: `Bearer ${admin.token}`, "x-tenant-subdomain": admin.subdomain } });
    expect(new TextDecoder().decode(await second.arrayBuffer())).toBe("%PDF-stored");

    const other = await signedIn(school, { role: "student" });
    expect(failure(await as(other, `/t/certificates/${certificate.id}/pdf`))).toEqual({ status: 404, error: "certificate_not_found" });
    expect(failure(await as(admin, "/t/certificates/nope/pdf"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

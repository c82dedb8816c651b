import { describe, expect, it } from "vitest";
import { devMailbox, outboxRow, registerSchool } from "../helpers/email";

describe("outbox through the local queue", () => {
  it("a registration's email is delivered by the Worker's consumer via lms-outbox", async () => {
    const school = await registerSchool();
    const [email] = (await devMailbox(school.email)).body.data.messages;
    const deadline = Date.now() + 20_000;
    let row = await outboxRow(email!.id);
    while (row.status === "pending" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      row = await outboxRow(email!.id);
    }
    expect(row).toMatchObject({ status: "sent", attempts: 1, providerMessageId: `log:${email!.id}` });
  });
});

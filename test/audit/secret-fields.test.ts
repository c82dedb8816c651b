import { describe, expect, it } from "vitest";
import { changedFields } from "../../src/platform/audit/write";

describe("audit changes refuse secret-bearing fields by their last word", () => {
  it.each(["password", "new_password", "password_hash", "token_hash", "refresh_token", "secret", "webhook_secrets", "otp", "private_key", "whsec"])(
    "refuses %s",
    (field) => {
      expect(() => changedFields({ [field]: ["a", "b"] })).toThrow(`audit: the field "${field}" may carry a secret`);
    },
  );

  it("keeps settings about secrets and drops unchanged fields", () => {
    expect(changedFields({ revoke_on_password_change: [false, true], revoke_on_password_reset: [true, true], token_count: [1, 2] })).toEqual({
      revoke_on_password_change: [false, true],
      token_count: [1, 2],
    });
  });
});

import { describe, expect, it } from "vitest";
import { aReview, anApproval, fresh } from "../testing/asks";
import { buttonAction, layoutOf, notificationId, parseNotificationId, replyOfButton } from "./notify";

describe("an approval's notification", () => {
  const ask = fresh(anApproval());

  it("has Allow and Deny, each sending its reply", () => {
    expect(layoutOf(ask)).toBe("approval");
    expect(parseNotificationId(notificationId(ask))).toEqual({ askId: ask.id, layout: "approval" });
    expect([0, 1].map((i) => buttonAction("approval", i))).toEqual(["reply", "reply"]);
    expect(replyOfButton(ask, 0)).toEqual({ outcome: "allowed" });
    expect(replyOfButton(ask, 1)).toEqual({ outcome: "denied" });
  });

  it("keeps a review's Approve and Open", () => {
    expect(replyOfButton(fresh(aReview()), 0)).toEqual({ outcome: "approved" });
    expect(buttonAction("review", 1)).toBe("open");
  });
});

import { describe, expect, test } from "bun:test";
import type { Ask, Reply } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { allowedReplies, checkReply, type Outcome } from "./check-reply.ts";
import { openAsk } from "./open-ask.ts";
import { aBriefing, agentAnswers, agentAnswersFollowUp, anApproval, aQuestion, aReview, at, codeOf, personReplies, personResponds } from "../testing/sample-asks.ts";

const question = aQuestion();
const multipleChoice = aQuestion({ multiple: true });
const ownWordsOnly = openAsk("question", { question: "When, then?", project: "loopback" }, { id: "q2", at: at(0) });
const questionAskedBack = personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" });
const questionClosed = personReplies(aQuestion(), { outcome: "dismissed" });
const review = aReview();
const reviewAskedBack = personReplies(aReview(), { outcome: "follow_up", question: "Why 1.2?" });
const reviewClosed = personReplies(aReview(), { outcome: "approved" });
const briefing = aBriefing();
const briefingAgentsMove = personResponds(aBriefing(), [{ point: "2", text: "Which index?" }]);
const briefingClosed = personReplies(aBriefing(), { outcome: "dismissed" });
const approval = anApproval();
const approvalAllowed = personReplies(anApproval(), { outcome: "allowed" });
// Point 1 resolved; point 2 broken into 2.1 and 2.2; the person's move.
const briefingWithSubPoints = agentAnswers(personResponds(aBriefing(), [{ point: "1", resolved: true }, { point: "2", text: "Which index?" }]), [
  { point: "2", answer: "On user_id.", points: [{ title: "A composite index" }, { title: "A partial index" }] },
]);
// As above, then point 2 resolved with its sub-points, and point 3 answered.
const briefingParentResolved = agentAnswers(personResponds(briefingWithSubPoints, [{ point: "2", resolved: true }, { point: "3", text: "How many queries?" }], 3), [
  { point: "3", answer: "One per row: 200." },
], 4);

type Case = [behaviour: string, ask: Ask, reply: Reply, refusal: ProblemCode | null];
const answered = (selected: string[], text?: string): Reply => ({ outcome: "answered", selected, ...(text !== undefined && { text }) });
const responded = (...points: Extract<Reply, { outcome: "responded" }>["points"]): Reply => ({ outcome: "responded", points });

const whoseMoveCases: Case[] = [
  ["a closed question takes no answer", questionClosed, answered(["Yes"]), "ask.closed"],
  ["a closed question cannot be dismissed again", questionClosed, { outcome: "dismissed" }, "ask.closed"],
  ["a closed review takes no verdict", reviewClosed, { outcome: "changes_requested", feedback: "Shorter." }, "ask.closed"],
  ["a closed briefing cannot be dismissed", briefingClosed, { outcome: "dismissed" }, "ask.closed"],
  ["a question is not answered while the agent answers a follow-up", questionAskedBack, answered(["Yes"]), "ask.not_your_turn"],
  ["a question is not dismissed while the agent answers a follow-up", questionAskedBack, { outcome: "dismissed" }, "ask.not_your_turn"],
  ["a question takes no second follow-up before the first is answered", questionAskedBack, { outcome: "follow_up", question: "And?" }, "ask.not_your_turn"],
  ["a review is not approved while the agent answers a follow-up", reviewAskedBack, { outcome: "approved" }, "ask.not_your_turn"],
  ["a review is not dismissed while the agent answers a follow-up", reviewAskedBack, { outcome: "dismissed" }, "ask.not_your_turn"],
  ["a briefing takes no points while the agent answers", briefingAgentsMove, responded({ point: "1", text: "Also this." }), "ask.not_your_turn"],
  ["a reply that fits no kind is still refused as out of turn on the agent's move", questionAskedBack, responded({ point: "1", text: "?" }), "ask.not_your_turn"],
  ["a briefing may be dismissed while the agent answers", briefingAgentsMove, { outcome: "dismissed" }, null],
  ["a question asked back and answered is the person's to answer again", agentAnswersFollowUp(questionAskedBack), answered(["Yes"]), null],
];

const kindCases: Case[] = [
  ["a review takes no answer", review, answered(["Yes"]), "reply.wrong_kind"],
  ["a briefing takes no answer", briefing, answered([], "Fine."), "reply.wrong_kind"],
  ["a question takes no approval", question, { outcome: "approved" }, "reply.wrong_kind"],
  ["a briefing takes no approval", briefing, { outcome: "approved" }, "reply.wrong_kind"],
  ["a question takes no change request", question, { outcome: "changes_requested", feedback: "No." }, "reply.wrong_kind"],
  ["a briefing takes no change request", briefing, { outcome: "changes_requested", feedback: "No." }, "reply.wrong_kind"],
  ["a briefing takes no follow-up", briefing, { outcome: "follow_up", question: "Why?" }, "reply.wrong_kind"],
  ["a question takes no replies on points", question, responded({ point: "1", text: "?" }), "reply.wrong_kind"],
  ["a review takes no replies on points", review, responded({ point: "1", text: "?" }), "reply.wrong_kind"],
  ["a question may be dismissed", question, { outcome: "dismissed" }, null],
  ["a review may be dismissed", review, { outcome: "dismissed" }, null],
  ["a briefing may be dismissed", briefing, { outcome: "dismissed" }, null],
  ["a question may be asked back", question, { outcome: "follow_up", question: "Which Friday?" }, null],
  ["a review may be asked back", review, { outcome: "follow_up", question: "Why 1.2?" }, null],
  ["a review may be approved", review, { outcome: "approved" }, null],
  ["a review may be approved with a note", review, { outcome: "approved", note: "Nice." }, null],
  ["a review may be sent back with feedback", review, { outcome: "changes_requested", feedback: "Shorter, please." }, null],
  ["feedback must say something", review, { outcome: "changes_requested", feedback: "  " }, "reply.empty"],
  ["a follow-up must ask something", question, { outcome: "follow_up", question: "\n" }, "reply.empty"],
];

const answerCases: Case[] = [
  ["a question is answered with one offered choice", question, answered(["Yes"]), null],
  ["a question is answered in the person's own words", question, answered([], "After the freeze."), null],
  ["a question is answered with a choice and words", question, answered(["Later"], "After the freeze."), null],
  ["a question that allows several takes several", multipleChoice, answered(["Yes", "Later"]), null],
  ["a question without choices is answered in words", ownWordsOnly, answered([], "Tuesday."), null],
  ["an answer with neither choice nor words is empty", question, answered([]), "reply.empty"],
  ["an answer of whitespace alone is empty", question, answered([], "   "), "reply.empty"],
  ["a choice must be among those offered", question, answered(["Maybe"]), "reply.unknown_choice"],
  ["a choice must be among those offered, matched exactly", question, answered(["yes"]), "reply.unknown_choice"],
  ["a question without choices takes none", ownWordsOnly, answered(["Yes"], "Tuesday."), "reply.unknown_choice"],
  ["a choice is picked once", multipleChoice, answered(["Yes", "Yes"]), "reply.duplicate_choice"],
  ["a choice is picked once, even where one is allowed", question, answered(["No", "No"]), "reply.duplicate_choice"],
  ["a question takes one choice unless several are allowed", question, answered(["Yes", "No"]), "reply.one_choice"],
];

const pointCases: Case[] = [
  ["a person writes on one point and leaves the rest open", briefing, responded({ point: "2", text: "Which index?" }), null],
  ["a person resolves every point at once", briefing, responded(...["1", "2", "3", "4"].map((point) => ({ point, resolved: true }))), null],
  ["a person resolves one point and writes on another", briefing, responded({ point: "1", resolved: true }, { point: "3", text: "How many?" }), null],
  ["a person closes a point with a remark while writing on another", briefing, responded({ point: "1", text: "Known.", resolved: true }, { point: "2", text: "Which?" }), null],
  ["a person writes on a point and keeps it open explicitly", briefing, responded({ point: "2", text: "Which?", resolved: false }), null],
  ["a person writes on a sub-point", briefingWithSubPoints, responded({ point: "2.1", text: "On which columns?" }), null],
  ["resolving the open top points resolves every sub-point beneath them", briefingWithSubPoints, responded(...["2", "3", "4"].map((point) => ({ point, resolved: true }))), null],
  ["a point must exist", briefing, responded({ point: "5", text: "?" }), "reply.unknown_point"],
  ["a sub-point must exist", briefingWithSubPoints, responded({ point: "2.3", text: "?" }), "reply.unknown_point"],
  ["a point is named by its id, not its title", briefing, responded({ point: "The cache is cold", text: "?" }), "reply.unknown_point"],
  ["a point is named once", briefing, responded({ point: "2", text: "Which?" }, { point: "2", resolved: true }), "reply.point_twice"],
  ["a resolved point takes no more replies", briefingWithSubPoints, responded({ point: "1", text: "Actually…" }), "reply.point_resolved"],
  ["a point beneath a resolved point is resolved too", briefingParentResolved, responded({ point: "2.1", text: "Actually…" }), "reply.point_resolved"],
  ["a point named needs words or to be resolved", briefing, responded({ point: "2" }), "reply.point_empty"],
  ["a point named with whitespace alone is empty", briefing, responded({ point: "2", text: " \t" }), "reply.point_empty"],
  ["a point left open without words is empty", briefing, responded({ point: "2", resolved: false }), "reply.point_empty"],
  ["resolving some points and writing on none leaves the agent nothing", briefing, responded({ point: "1", resolved: true }), "reply.nothing_to_answer"],
  ["words on a point resolved in the same reply leave the agent nothing", briefing, responded({ point: "1", text: "Known.", resolved: true }), "reply.nothing_to_answer"],
  ["words on a sub-point whose parent is resolved in the same reply leave the agent nothing", briefingWithSubPoints, responded({ point: "2", resolved: true }, { point: "2.1", text: "Shame." }), "reply.nothing_to_answer"],
];

describe("checkReply", () => {
  for (const [group, cases] of [["whose move", whoseMoveCases], ["kind", kindCases], ["answers", answerCases], ["briefing points", pointCases]] as const) {
    describe(group, () => {
      for (const [behaviour, ask, reply, refusal] of cases) {
        test(behaviour, () => expect(codeOf(checkReply(ask, reply))).toBe(refusal));
      }
    });
  }

  test("a refusal says which point or choice is at fault", () => {
    expect(checkReply(briefing, responded({ point: "7", text: "?" }))?.message).toContain("point 7");
    expect(checkReply(question, answered(["Maybe"]))?.message).toContain('"Maybe"');
  });

  test("a refusal carries the status the contract gives it", () => {
    expect(checkReply(questionClosed, answered(["Yes"]))?.status).toBe(409);
    expect(checkReply(questionAskedBack, answered(["Yes"]))?.status).toBe(409);
    expect(checkReply(review, answered(["Yes"]))?.status).toBe(422);
  });
});

describe("allowedReplies", () => {
  const states: [string, Ask, Outcome[]][] = [
    ["a question on the person's move", question, ["answered", "follow_up", "dismissed"]],
    ["a review on the person's move", review, ["approved", "changes_requested", "follow_up", "dismissed"]],
    ["a briefing on the person's move", briefing, ["responded", "dismissed"]],
    ["an approval on the person's move", approval, ["allowed", "denied"]],
    ["an allowed approval", approvalAllowed, []],
    ["a question on the agent's move", questionAskedBack, []],
    ["a review on the agent's move", reviewAskedBack, []],
    ["a briefing on the agent's move", briefingAgentsMove, ["dismissed"]],
    ["a closed question", questionClosed, []],
    ["a closed review", reviewClosed, []],
    ["a closed briefing", briefingClosed, []],
  ];

  for (const [state, ask, outcomes] of states) {
    test(`${state} allows ${outcomes.join(", ") || "nothing"}`, () => expect([...allowedReplies(ask)].sort()).toEqual([...outcomes].sort()));
  }

  const wellFormed: Record<Outcome, Reply> = {
    answered: answered(["Yes"]),
    approved: { outcome: "approved" },
    changes_requested: { outcome: "changes_requested", feedback: "Shorter." },
    follow_up: { outcome: "follow_up", question: "Why?" },
    dismissed: { outcome: "dismissed" },
    responded: responded({ point: "4", text: "When?" }),
    allowed: { outcome: "allowed" },
    denied: { outcome: "denied", message: "Not on main." },
  };

  for (const [state, ask] of states) {
    test(`${state}: a well-formed reply passes checkReply exactly when it is allowed`, () => {
      for (const [outcome, reply] of Object.entries(wellFormed) as [Outcome, Reply][]) {
        expect({ outcome, passes: checkReply(ask, reply) === null }).toEqual({ outcome, passes: allowedReplies(ask).has(outcome) });
      }
    });
  }
});

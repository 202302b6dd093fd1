package v1alpha1

// The condition a Planner sets when promotion holds a follower's change.
const (
	// PromotionHeldCondition is True when promotion keeps at least one
	// subscription of a following cluster where it is (olmops.yaml's
	// promotion.after and soak); its message names each one and why.
	// Absent when nothing is held. Planning itself succeeded: Ready stays
	// True, for holding is what promotion is for.
	PromotionHeldCondition = "PromotionHeld"
	// PromotionWaitingReason: a followed cluster has not reported the
	// target healthy yet, or not for the soak time; the Planner plans again
	// when the soak ends, or at its interval.
	PromotionWaitingReason = "PromotionWaiting"
	// PromotionStoppedReason: a followed cluster reports the change
	// failing or in error; the wave stops there until it recovers.
	PromotionStoppedReason = "PromotionStopped"
)

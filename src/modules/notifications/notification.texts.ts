/**
 * Titles and messages of the notifications the service writes, one place for the service
 * and the demo seeder. `amount` is in whole tokens, as written ("12.5").
 */
export interface NotificationText {
  title: string;
  message: string;
}

export const notificationTexts = {
  poolCreated: (poolTitle: string): NotificationText => ({ title: 'New pool', message: `${poolTitle} is open for predictions.` }),
  rewardAvailable: (poolTitle: string, amount: number | string): NotificationText => ({
    title: 'Reward available',
    message: `${poolTitle} is resolved: you won ${amount} tokens. Claim them from the pool.`,
  }),
  refundAvailable: (poolTitle: string, amount: number | string): NotificationText => ({
    title: 'Refund available',
    message: `${poolTitle} is refunded: ${amount} tokens are yours to claim.`,
  }),
  rewardClaimed: (amount: number | string): NotificationText => ({
    title: 'Reward claimed',
    message: `${amount} tokens were paid to your wallet.`,
  }),
  refundClaimed: (amount: number | string): NotificationText => ({
    title: 'Refund claimed',
    message: `${amount} tokens were refunded to your wallet.`,
  }),
  streakRewardReceived: (amount: number | string): NotificationText => ({
    title: 'Streak reward received',
    message: `${amount} tokens from your streak were paid to your wallet.`,
  }),
  streakRewardAvailable: (streakTitle: string, amount: number | string): NotificationText => ({
    title: 'Streak reward available',
    message: `Your streak in ${streakTitle} earned ${amount} tokens.`,
  }),
} as const;

import type { PaymentStatus } from "../../src/model/payment-terms.js";
import type { Payment } from "../../src/payments/schemas.js";
import type { PaymentGateway } from "../../src/payouts/types.js";

/**
 * The Payment API as a status tracker sees it: `GET /payments/{id}` answers from
 * `statusAt`, or throws the next scripted failure, and every read is recorded. It sends no
 * payments.
 */
export class ScriptedGateway implements PaymentGateway {
  /** The payment ids read, in order. */
  readonly polls: string[] = [];
  /** Thrown by the next polls, in order, instead of answering. */
  readonly failures: unknown[] = [];
  statusAt: (id: string) => PaymentStatus = () => "pending";

  async getPayment(id: string): Promise<Payment> {
    this.polls.push(id);
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    return { id, status: this.statusAt(id), amount: 5000, fee: 50 };
  }
  async disburse(): Promise<Payment> {
    throw new Error("a ScriptedGateway sends no payments");
  }
  async collect(): Promise<Payment> {
    throw new Error("a ScriptedGateway sends no payments");
  }
  async getAvailability(): Promise<never[]> {
    return [];
  }
  async getUserInfo(): Promise<{ firstName: string; lastName: string }> {
    return { firstName: "Jean", lastName: "Mbarga" };
  }
}

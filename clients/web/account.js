// The account page (#/account): sign up, sign in, sign out, change the password, and the
// person's bots with their tokens (protocol/PROTOCOL.md section 16).
//
// A guest sees two forms: sign up (name, password, "claim my games") and sign in. Either
// answer, `signed_in`, carries a login token that app.js keeps in localStorage and says
// hello with on the next visit (hooks.signedIn). A person sees who it is, a sign-out button,
// the change-password form and its bots: make one (its token is shown once, here), give one
// a new token, revoke one's token.
//
// Element ids are stable, for people's tests as much as for ours:
//   #signup-name #signup-password #signup-claim #signup-go
//   #login-name #login-password #login-go
//   #account-message (the last refusal, role=alert) · #account-who · #signout
//   #password-old #password-new #password-go
//   #bot-name #bot-create · #bot-token (a token shown once, with data-bot)
//   #my-bots tr[data-bot=<name>] with buttons [data-action=rotate] and [data-action=revoke]

import { h, clear, toast, formatWhen } from "./dom.js";

/** Why a refusal happened, in words: the server's message, plus when to try again. */
export function refusalText(err) {
  const wait = err.reply?.retry_after;
  return wait ? `${err.message} (try again in ${Math.ceil(wait)} s)` : err.message;
}

export class AccountView {
  /** `hooks`: {account() -> welcome.account, signedIn(reply), signOut() -> Promise}. */
  constructor(root, conn, hooks) {
    this.root = root;
    this.conn = conn;
    this.hooks = hooks;
    this.message = "";
    this.shownToken = null;   // {bot, token}: shown once, until the page is left
    this.bots = null;
    this.off = conn.on("welcome", () => this.load());
  }

  destroy() {
    this.off();
  }

  async load() {
    const account = this.hooks.account();
    this.bots = null;
    this.render();
    if (account && account.kind !== "guest" && account.kind !== "bot") {
      try {
        this.bots = (await this.conn.ask({ type: "list_my_bots" })).bots;
      } catch (err) {
        this.message = refusalText(err);
      }
      this.render();
    }
  }

  async run(message, done) {
    this.message = "";
    try {
      const reply = await this.conn.ask(message);
      await done(reply);
    } catch (err) {
      this.message = refusalText(err);
    }
    this.render();
  }

  render() {
    const account = this.hooks.account();
    const person = account && account.kind !== "guest" && account.kind !== "bot";
    clear(this.root).append(
      h("section", { class: "card account" },
        h("h2", {}, person ? "Your account" : "Sign up or sign in"),
        this.message ? h("p", { id: "account-message", class: "error", role: "alert" }, this.message) : null,
        person ? this.renderPerson(account) : this.renderGuest(account)),
      person ? this.renderBots() : null);
  }

  renderGuest(account) {
    if (account?.kind === "bot") {
      return h("p", { class: "muted" }, "This session is a bot's: sign out by closing the page.");
    }
    const name = h("input", { id: "signup-name", type: "text", maxlength: 64, autocomplete: "username", required: true });
    const password = h("input", { id: "signup-password", type: "password", minlength: 8, autocomplete: "new-password", required: true });
    const claim = h("input", { id: "signup-claim", type: "checkbox", checked: true });
    const loginName = h("input", { id: "login-name", type: "text", maxlength: 64, autocomplete: "username", required: true });
    const loginPassword = h("input", { id: "login-password", type: "password", autocomplete: "current-password", required: true });
    const signed = async (reply) => {
      await this.hooks.signedIn(reply);
      toast(reply.claimed ? `Welcome, ${reply.account.name}: ${reply.claimed} of your games are yours now`
                          : `Signed in as ${reply.account.name}`);
      this.load();
    };
    return h("div", { class: "account-forms" },
      h("form", { class: "stack-form", id: "signup-form", onsubmit: (e) => {
        e.preventDefault();
        this.run({ type: "sign_up", name: name.value.trim(), password: password.value, claim: claim.checked }, signed);
      } },
        h("h3", {}, "New here? Sign up"),
        h("label", {}, "Name", name),
        h("label", {}, "Password (at least 8 characters)", password),
        h("label", { class: "check" }, claim, "make my games as a guest mine"),
        h("button", { type: "submit", class: "primary", id: "signup-go" }, "Sign up")),
      h("form", { class: "stack-form", id: "login-form", onsubmit: (e) => {
        e.preventDefault();
        this.run({ type: "sign_in", name: loginName.value.trim(), password: loginPassword.value }, signed);
      } },
        h("h3", {}, "Have an account? Sign in"),
        h("label", {}, "Name", loginName),
        h("label", {}, "Password", loginPassword),
        h("button", { type: "submit", id: "login-go" }, "Sign in")),
      h("p", { class: "hint" }, "Or keep playing as a guest: nothing else changes."));
  }

  renderPerson(account) {
    const old = h("input", { id: "password-old", type: "password", autocomplete: "current-password" });
    const fresh = h("input", { id: "password-new", type: "password", minlength: 8, autocomplete: "new-password", required: true });
    return h("div", { class: "account-forms" },
      h("p", { class: "signed-in" }, "Signed in as ", h("strong", { id: "account-who" }, account.name), " ",
        h("span", { class: ["kind", `kind-${account.kind}`] }, account.kind), " ",
        h("button", { type: "button", id: "signout", onclick: () => this.signOut() }, "Sign out")),
      h("form", { class: "stack-form", id: "password-form", onsubmit: (e) => {
        e.preventDefault();
        this.run({ type: "change_password", old: old.value, new: fresh.value }, () => {
          toast("Password changed: your other browsers are signed out");
        });
      } },
        h("h3", {}, "Change your password"),
        h("label", {}, "Current password", old),
        h("label", {}, "New password", fresh),
        h("button", { type: "submit", id: "password-go" }, "Change password")));
  }

  async signOut() {
    this.message = "";
    try {
      await this.hooks.signOut();
      toast("Signed out");
    } catch (err) {
      this.message = refusalText(err);
      this.render();
    }
  }

  renderBots() {
    const name = h("input", { id: "bot-name", type: "text", maxlength: 64, placeholder: "my-bot", required: true });
    const shown = this.shownToken;
    const tokenFor = (reply) => {
      this.shownToken = { bot: reply.bot, token: reply.token };
      return this.load();
    };
    return h("section", { class: "card account-bots" },
      h("h2", {}, "Your bots"),
      h("p", { class: "muted" }, "A bot connects with its token (", h("code", {}, "arena bot --token …"),
        ", or hello.token). A token is shown once: copy it now."),
      shown ? h("div", { class: "token-once" }, `Token of ${shown.bot}: `,
        h("code", { id: "bot-token", dataset: { bot: shown.bot } }, shown.token)) : null,
      this.bots === null ? h("p", { class: "muted" }, "Loading…")
        : !this.bots.length ? h("p", { class: "muted empty" }, "No bots yet.")
          : h("table", { class: "list", id: "my-bots" },
            h("thead", {}, h("tr", {}, h("th", {}, "Bot"), h("th", {}, "Made"), h("th", {}, "Status"), h("th", {}, ""))),
            h("tbody", {}, this.bots.map((bot) => h("tr", { dataset: { bot: bot.name } },
              h("td", {}, bot.name),
              h("td", { class: "muted" }, formatWhen(bot.created_at)),
              h("td", {}, bot.banned ? "banned" : bot.online ? "online" : "offline"),
              h("td", { class: "row-actions" },
                h("button", { type: "button", class: "small", dataset: { action: "rotate" },
                              onclick: () => this.run({ type: "rotate_bot_token", bot: bot.name }, tokenFor) }, "New token"),
                h("button", { type: "button", class: "small subtle", dataset: { action: "revoke" },
                              onclick: () => this.run({ type: "revoke_bot_token", bot: bot.name }, () => {
                                if (this.shownToken?.bot === bot.name) this.shownToken = null;
                                toast(`${bot.name} has no working token now`);
                                return this.load();
                              }) }, "Revoke token")))))),
      h("form", { class: "row-form", id: "bot-form", onsubmit: (e) => {
        e.preventDefault();
        this.run({ type: "create_bot", name: name.value.trim() }, tokenFor);
      } },
        h("label", {}, "New bot's name", name),
        h("button", { type: "submit", id: "bot-create" }, "Make a bot")));
  }
}

"""``amend chat`` driven from a non-terminal stdin: one turn a line, exit at end of input."""

from __future__ import annotations

from click.testing import CliRunner

from ui.chat import chat

CLOCK = ["--clock", "2026-12-01T09:00:00+01:00"]


def run(lines: list[str], *args: str):
    return CliRunner().invoke(chat, [*CLOCK, *args], input="\n".join(lines) + "\n")


def test_scripted_session_shows_the_revision_and_the_stale_action_dying():
    result = run(["Book a service visit for P-100 on Wednesday afternoon.",
                  "/faults op=create_booking delay_ms=1500",
                  "yes",
                  "Sorry, Thursday morning, not Wednesday.",
                  "/wait",
                  "yes",
                  "/ledger"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "ledger visit_date: 2026-12-02 -> 2026-12-03 (v2, revision 1" in out
    assert "action cancel requested a1" in out
    assert "action cancelled a1 create_booking reason=withdrawn" in out
    assert "It's booked. Pump P-100, Thursday 3 December, in the morning." in out
    # end of input waited for the agent: the second create committed before exit
    assert "action committed a2" in out


def test_slash_commands_report_bad_input_in_one_line_and_the_session_goes_on():
    result = run(["/faults delay_ms=10", "/staff", "/staff BK-NOPE window=morning",
                  "/nonsense", "[bold]markup[/] is just text", "/help", "/quit",
                  "this line is never read"])
    assert result.exit_code == 0, result.output
    assert "op= is required" in result.output
    assert "/staff: write /staff REF field=value" in result.output
    assert "unknown command /nonsense" in result.output
    assert "/staff BK-NOPE:" in result.output and "Traceback" not in result.output
    assert "[bold]markup[/] is just text" in result.output
    assert "/ledger" in result.output and "never read" not in result.output


def test_caller_file_is_used_and_a_bad_one_is_a_one_line_error(tmp_path):
    good = tmp_path / "caller.yaml"
    good.write_text("caller:\n  tenant: acme\n  subject: tech-99\n  roles: [technician]\n"
                    "  account: ACME-009\n  assets:\n    - {id: P-900, configuration: C2, "
                    "region: EU, site: '1 Quay'}\n")
    result = run(["Book a visit on Thursday morning.", "/ledger"], "--caller", str(good))
    assert result.exit_code == 0, result.output
    assert "tech-99" in result.output and "asset: - -> P-900" in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("caller:\n  tenant: acme\n")
    result = run([], "--caller", str(bad))
    assert result.exit_code == 1
    assert "missing subject, account" in result.output
    assert "Traceback" not in result.output

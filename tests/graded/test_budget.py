"""The cost rule both collecting engines keep (arena.endpoint.budget)."""

from __future__ import annotations

import threading

import pytest

from arena.endpoint.budget import TEMPLATE_TOKENS, Budget, counted, prompt_bound, worst_cost
from arena.endpoint.prices import Prices
from arena.endpoint.run_settings import CollectSettings
from arena.errors import BadInput

SETTINGS = CollectSettings(
    endpoint="http://127.0.0.1:9",
    model="m",
    system_prompt="Be brief.",
    inference={"max_tokens": 50},
    prices=Prices(3.0, 7.0),
)


def test_counts_past_what_the_request_allowed_are_held_down_and_said():
    messages = [{"role": "user", "content": "Hi"}]
    honest = counted(SETTINGS, messages, 10, 50)
    assert (honest.prompt_tokens, honest.completion_tokens, honest.suspicious) == (10, 50, "")
    lying = counted(SETTINGS, messages, 10**6, 51)
    assert lying.completion_tokens == 50 and lying.prompt_tokens == 2 + TEMPLATE_TOKENS
    assert "51 completion tokens reported, max_tokens is 50" in lying.suspicious
    assert "1000000 prompt tokens reported for at most 18" in lying.suspicious


def test_an_earlier_answer_counts_at_most_max_tokens_however_long():
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "x" * 10_000},
        {"role": "user", "content": "And?"},
    ]
    assert prompt_bound(messages, 50) == 2 + 50 + 4 + 3 * TEMPLATE_TOKENS


def test_what_any_reply_is_counted_at_stays_within_the_jobs_most():
    turns = ("First question?", "Second one, longer than the first?")
    most = worst_cost(SETTINGS, turns, label="s")
    conversation = [{"role": "system", "content": "Be brief."}]
    spent = 0.0
    for turn in turns:
        conversation.append({"role": "user", "content": turn})
        tokens = counted(SETTINGS, conversation, 10**9, 10**9)
        spent += SETTINGS.prices.cost(tokens.prompt_tokens, tokens.completion_tokens)
        conversation.append({"role": "assistant", "content": "y" * 5000})
    assert spent == pytest.approx(most) and spent <= most


def test_a_budget_needs_prices_and_max_tokens():
    with pytest.raises(BadInput, match="prices and max_tokens"):
        worst_cost(CollectSettings(endpoint="http://h", model="m"), ("q",), label="s")


def test_reservations_from_many_threads_never_pass_the_limit():
    budget = Budget(1.0)
    taken: list[bool] = []

    def reserve() -> None:
        for _ in range(200):
            taken.append(budget.reserve(0.125))

    threads = [threading.Thread(target=reserve) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert taken.count(True) == 8  # exactly: kept as fractions, no float drift
    for _ in range(8):
        budget.settle(0.125, None)  # not known: counted at its most
    assert budget.spent == 1.0 and not budget.reserve(1e-12)


def test_no_limit_admits_everything_and_still_counts():
    budget = Budget(None)
    assert budget.reserve(1e9)
    budget.settle(1e9, 0.25)
    assert budget.spent == 0.25

"""The allow-list: every hop is checked by scheme, host, port and address range."""

from __future__ import annotations

import pytest

from tambench.acquisition.urls import UrlPolicy, is_loopback_url, origin_of
from tambench.errors import OffDomainError

LOCAL = UrlPolicy.from_base_urls("http://127.0.0.1:8000/kaggle")


def test_same_origin_is_allowed() -> None:
    assert LOCAL.check("http://127.0.0.1:8000/kaggle/competitions/x") == (
        "http://127.0.0.1:8000/kaggle/competitions/x")


@pytest.mark.parametrize("url, why", [
    ("http://127.0.0.1:9999/canary", "not on the allow-list"),
    ("https://127.0.0.1:8000/", "not on the allow-list"),
    ("file:///etc/passwd", "scheme 'file'"),
    ("data:text/html,<h1>x</h1>", "scheme 'data'"),
    ("javascript:alert(1)", "scheme 'javascript'"),
    ("http://evil.example/", "not on the allow-list"),
])
def test_other_origins_and_schemes_are_refused(url: str, why: str) -> None:
    with pytest.raises(OffDomainError, match=why):
        LOCAL.check(url)


def test_redirect_location_is_resolved_and_checked() -> None:
    assert LOCAL.check_redirect("http://127.0.0.1:8000/a/b", "../c") == "http://127.0.0.1:8000/c"
    with pytest.raises(OffDomainError, match="reached from http://127.0.0.1:8000/a"):
        LOCAL.check_redirect("http://127.0.0.1:8000/a", "http://127.0.0.1:9999/x")


@pytest.mark.parametrize("host, why", [
    ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("192.168.0.7", "private"),
    ("169.254.169.254", "link-local"), ("[::1]", "loopback"), ("0.0.0.0", "private"), ("224.0.0.1", "multicast"),
])
def test_private_and_loopback_addresses_are_refused_for_a_public_base(host: str,
                                                                      why: str) -> None:
    # The address is on the allow-list (as if a public site's base URL pointed there), but
    # only a loopback base URL lets loopback through, and private ranges never pass.
    policy = UrlPolicy(origins=frozenset({origin_of(f"http://{host}/")}), allow_loopback=False,
                       resolve=False)
    with pytest.raises(OffDomainError, match=why):
        policy.check(f"http://{host}/metadata")


def test_loopback_base_allows_loopback_and_public_base_does_not() -> None:
    assert LOCAL.allow_loopback is True
    public = UrlPolicy.from_base_urls("https://www.kaggle.com", extra_hosts=("kaggle.com",))
    assert public.allow_loopback is False
    assert origin_of("https://kaggle.com/x") in public.origins
    assert is_loopback_url("http://localhost:1/") and not is_loopback_url("https://kaggle.com/")


def test_refusals_are_recorded() -> None:
    policy = UrlPolicy.from_base_urls("http://127.0.0.1:8000/")
    with pytest.raises(OffDomainError):
        policy.check("http://127.0.0.1:1/x")
    assert policy.refused == ["http://127.0.0.1:1/x"]

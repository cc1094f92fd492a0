#!/usr/bin/perl
# SPDX-License-Identifier: MIT
# relay.pl PORT: QEMU's slirp runs this once per guest connection (guestfwd
# "cmd:"), with that connection on stdin/stdout. It copies bytes both ways
# between it and 127.0.0.1:PORT. The address is fixed: the guest can reach
# this machine's loopback port and nothing else.
#
# Why a relay of our own (and why perl): the guestfwd "tcp:" chardev makes
# one connection at QEMU start that every guest connection shares, while
# NVMe/TCP opens one connection per queue. socat works, but slirp's end of
# the loopback pair has no TCP_NODELAY, so Nagle plus delayed ACKs stall
# every multi-segment PDU ~40 ms. This relay sets TCP_NODELAY on both
# sockets and re-arms TCP_QUICKACK (it is one-shot) after every read from
# slirp. perl-base is Essential in Debian, so this needs nothing installed.
# stderr is closed: for a cmd: helper it is the same socket as stdout.
use strict;
use warnings;
use Socket qw(AF_INET SOCK_STREAM IPPROTO_TCP TCP_NODELAY INADDR_LOOPBACK sockaddr_in);

open(STDERR, '>', '/dev/null');
my $port = $ARGV[0] // '';
exit 2 unless $port =~ /^[0-9]{1,5}$/ && $port >= 1 && $port <= 65535;
use constant TCP_QUICKACK => 12;

socket(my $target, AF_INET, SOCK_STREAM, 0) or exit 1;
setsockopt($target, IPPROTO_TCP, TCP_NODELAY, 1);
connect($target, sockaddr_in($port, INADDR_LOOPBACK)) or exit 1;
open(my $guest, '+<&=', fileno(STDIN)) or exit 1;
setsockopt($guest, IPPROTO_TCP, TCP_NODELAY, 1);
setsockopt($guest, IPPROTO_TCP, TCP_QUICKACK, 1);

# Each direction: source, sink, quickack the source after a read, still open.
my @ways = ([$guest, $target, 1, 1], [$target, $guest, 0, 1]);
while (grep { $_->[3] } @ways) {
	my $want = '';
	vec($want, fileno($_->[0]), 1) = 1 for grep { $_->[3] } @ways;
	my $ready;
	next unless select($ready = $want, undef, undef, undef) > 0;
	for my $w (grep { $_->[3] && vec($ready, fileno($_->[0]), 1) } @ways) {
		my ($src, $dst, $quickack) = @$w;
		my $n = sysread($src, my $data, 1 << 18);
		if (!$n) {
			# EOF or error: half-close the other side, keep the other way.
			shutdown($dst, 1);
			$w->[3] = 0;
			next;
		}
		setsockopt($src, IPPROTO_TCP, TCP_QUICKACK, 1) if $quickack;
		while (length $data) {
			my $sent = syswrite($dst, $data);
			exit 0 unless $sent;
			substr($data, 0, $sent) = '';
		}
	}
}
exit 0;
